import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, Link, useLoaderData } from "@remix-run/react";
import { DialogErrorBoundary } from "~/components/errors/error-boundary";
import { Dialog } from "~/components/ui/dialog";
import { CsrfInput, SubmitButton } from "~/components/ui/forms";
import { readProtectedForm } from "~/modules/auth/csrf.server";
import { requireUser } from "~/modules/auth/session.server";
import { parseFolderId } from "~/modules/folders/folder-params.server";
import { deleteFolder, getFolder } from "~/modules/folders/folders.server";
import { orNotFound } from "~/platform/errors.server";
import { redirectWithToast, withFailureToast } from "~/platform/toast.server";

export const meta: MetaFunction = () => [{ title: "Delete folder · Thoughtfully" }];

export async function loader({ request, params }: LoaderFunctionArgs) {
  const user = await requireUser(request);
  const folder = orNotFound(() => getFolder(user.id, parseFolderId(params.folderId)));
  return { folderId: folder.id, name: folder.name };
}

export async function action({ request, params }: ActionFunctionArgs) {
  const user = await requireUser(request);
  const folderId = parseFolderId(params.folderId);
  await readProtectedForm(request);
  return withFailureToast(`/folders/${folderId}`, "Failed to delete folder", async () => {
    await deleteFolder(user.id, folderId);
    return redirectWithToast("/", { title: "Folder deleted" });
  });
}

export default function DeleteFolder() {
  const { folderId, name } = useLoaderData<typeof loader>();
  return (
    <Dialog title={`Delete "${name}"?`} closeTo={`/folders/${folderId}`}>
      <p className="text-sm text-stone-700">
        Are you sure you want to delete this folder? All of the data and links will be deleted.
      </p>
      <div className="mt-6 flex flex-col-reverse gap-2 sm:flex-row sm:justify-end">
        <Link to={`/folders/${folderId}`} className="btn-secondary" preventScrollReset>
          Back
        </Link>
        <Form method="post">
          <CsrfInput />
          <SubmitButton
            pendingText="Deleting..."
            className="btn w-full bg-red-700 text-white hover:bg-red-800"
          >
            Delete Folder
          </SubmitButton>
        </Form>
      </div>
    </Dialog>
  );
}

export function ErrorBoundary() {
  return <DialogErrorBoundary />;
}
