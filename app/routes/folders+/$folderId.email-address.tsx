import { parseWithZod } from "@conform-to/zod/v4";
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, Link, useLoaderData } from "@remix-run/react";
import { z } from "zod";
import { CopyButton } from "~/components/copy-button";
import { DialogErrorBoundary } from "~/components/error-boundary";
import { Dialog } from "~/components/ui/dialog";
import { CsrfInput, SubmitButton } from "~/components/ui/forms";
import { requireUser } from "~/modules/accounts/session.server";
import { parseFolderId } from "~/modules/folders/folder-params.server";
import { getFolder } from "~/modules/folders/folders.server";
import {
  inboxAddress,
  inboxDomain,
  makeInboxAddress,
} from "~/modules/save-by-email/inbox-addresses.server";
import { readProtectedForm } from "~/platform/csrf.server";
import { invariantResponse, orNotFound } from "~/platform/errors.server";
import { redirectWithToast } from "~/platform/toast.server";

export const meta: MetaFunction = () => [{ title: "Save by e-mail · Thoughtfully" }];

export async function loader({ request, params }: LoaderFunctionArgs) {
  const user = await requireUser(request);
  const folder = orNotFound(() => getFolder(user.id, parseFolderId(params.folderId)));
  // Without a receiving domain there is no such feature to show.
  invariantResponse(inboxDomain(), "Not Found", 404);
  return {
    folderId: folder.id,
    name: folder.name,
    address: inboxAddress(user.id, folder.id),
    accountEmail: user.email,
  };
}

const MakeAddressSchema = z.object({ intent: z.literal("make-address") });

export async function action({ request, params }: ActionFunctionArgs) {
  const user = await requireUser(request);
  const folderId = parseFolderId(params.folderId);
  const submission = parseWithZod(await readProtectedForm(request), { schema: MakeAddressSchema });
  invariantResponse(submission.status === "success", "Bad Request", 400);
  const hadOne = orNotFound(() => inboxAddress(user.id, folderId)) !== null;
  invariantResponse(makeInboxAddress(user.id, folderId), "Not Found", 404);
  return redirectWithToast(
    `/folders/${folderId}/email-address`,
    hadOne
      ? { title: "New address made", description: "The old address no longer saves anything." }
      : { title: "Address made" },
  );
}

export default function FolderEmailAddress() {
  const { folderId, name, address, accountEmail } = useLoaderData<typeof loader>();
  return (
    <Dialog title={`Save to "${name}" by e-mail`} closeTo={`/folders/${folderId}`}>
      <p className="text-sm text-stone-700">
        Forward or send anything to this folder's own address from <strong>{accountEmail}</strong>:
        links, photos, PDFs and Word files become items in {name}, and your words become their
        comment. You get one short answer saying what was saved.
      </p>
      {address ? (
        <>
          <label htmlFor="inbox-address" className="mt-4 block text-sm font-medium text-stone-900">
            This folder's address
          </label>
          <div className="mt-1 flex flex-col gap-2 sm:flex-row">
            <input
              id="inbox-address"
              readOnly
              value={address}
              className="block w-full min-w-0 select-all rounded-lg border border-stone-300 bg-stone-50 px-3 py-2 font-mono text-sm text-stone-900"
            />
            <CopyButton text={address} label="Copy address" />
          </div>
          <p className="mt-2 text-sm">
            <a href={`mailto:${address}`} className="font-medium text-stone-900 underline">
              Write to {name} now
            </a>
          </p>
          <p className="mt-4 text-sm text-stone-600">
            Mail from any other address is not saved. If the address got out, make a new one: the
            old one stops at once.
          </p>
        </>
      ) : null}
      <div className="mt-6 flex flex-col-reverse gap-2 sm:flex-row sm:justify-end">
        <Link to={`/folders/${folderId}`} className="btn-secondary" preventScrollReset>
          {address ? "Done" : "Not now"}
        </Link>
        <Form method="post">
          <CsrfInput />
          <SubmitButton
            intent="make-address"
            pendingText="Making the address..."
            className={address ? "btn-secondary w-full" : "btn-primary w-full"}
          >
            {address ? "Make a new address" : "Get this folder's address"}
          </SubmitButton>
        </Form>
      </div>
    </Dialog>
  );
}

export function ErrorBoundary() {
  return <DialogErrorBoundary />;
}
