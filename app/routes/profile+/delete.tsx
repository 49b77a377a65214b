import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, Link } from "@remix-run/react";
import { Dialog } from "~/components/dialog";
import { CsrfInput, SubmitButton } from "~/components/forms";
import { deleteAccount } from "~/utils/accounts.server";
import { readProtectedForm } from "~/utils/csrf.server";
import { destroySession, requireUser } from "~/utils/session.server";
import { redirectWithToast } from "~/utils/toast.server";

export const meta: MetaFunction = () => [{ title: "Delete Account · Thoughtfully" }];

export async function loader({ request }: LoaderFunctionArgs) {
  await requireUser(request);
  return null;
}

export async function action({ request }: ActionFunctionArgs) {
  const user = await requireUser(request);
  await readProtectedForm(request);
  const clearCookie = await destroySession(request);
  await deleteAccount(user.id);
  return redirectWithToast(
    "/",
    { title: "Account deleted", description: "Your account and everything in it are gone." },
    { headers: { "Set-Cookie": clearCookie } },
  );
}

export default function DeleteAccount() {
  return (
    <Dialog title="Are you absolutely sure?" closeTo="/profile">
      <p className="text-sm text-stone-700">
        This permanently deletes your account. These are removed at once and cannot be recovered:
      </p>
      <ul className="mt-3 list-disc space-y-1 pl-5 text-sm text-stone-700">
        <li>your folders and all of their contents</li>
        <li>your uploaded files and photos</li>
        <li>your e-mail delivery schedules</li>
        <li>your profile information</li>
        <li>your subscription</li>
      </ul>
      <div className="mt-6 flex flex-col-reverse gap-2 sm:flex-row sm:justify-end">
        <Link to="/profile" className="btn-secondary" preventScrollReset>
          Cancel
        </Link>
        <Form method="post">
          <CsrfInput />
          <SubmitButton
            pendingText="Deleting..."
            className="btn w-full bg-red-700 text-white hover:bg-red-800"
          >
            Yes, delete my account
          </SubmitButton>
        </Form>
      </div>
    </Dialog>
  );
}
