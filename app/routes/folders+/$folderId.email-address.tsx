import { parseWithZod } from "@conform-to/zod/v4";
import {
  type ActionFunctionArgs,
  type LoaderFunctionArgs,
  type MetaFunction,
  redirect,
} from "@remix-run/node";
import { Form, Link, useLoaderData } from "@remix-run/react";
import { DialogErrorBoundary } from "~/components/errors/error-boundary";
import { CopyButton } from "~/components/ui/copy-button";
import { Dialog } from "~/components/ui/dialog";
import { CsrfInput, SubmitButton } from "~/components/ui/forms";
import { readProtectedForm } from "~/modules/auth/csrf.server";
import { requireUser } from "~/modules/auth/session.server";
import { parseFolderId } from "~/modules/folders/folder-params.server";
import { getFolder } from "~/modules/folders/folders.server";
import {
  inboxAddress,
  inboxDomain,
  makeInboxAddress,
} from "~/modules/save-by-email/inbox-addresses.server";
import { invariantResponse, orNotFound } from "~/platform/errors.server";
import { redirectWithToast } from "~/platform/toast.server";
import { z } from "~/platform/zod";

export const meta: MetaFunction = () => [{ title: "Save by e-mail · Thoughtfully" }];

export async function loader({ request, params }: LoaderFunctionArgs) {
  const user = await requireUser(request);
  const folder = orNotFound(() => getFolder(user.id, parseFolderId(params.folderId)));
  // Without a receiving domain there is no such feature to show.
  invariantResponse(inboxDomain(), "Not Found", 404);
  const address = inboxAddress(user.id, folder.id);
  return {
    folderId: folder.id,
    name: folder.name,
    address,
    accountEmail: user.email,
    // A new address is asked for twice: the old one stops at once (`?new` asks).
    replacing: address !== null && new URL(request.url).searchParams.has("new"),
  };
}

const MakeAddressSchema = z.object({ intent: z.enum(["make-address", "replace-address"]) });

export async function action({ request, params }: ActionFunctionArgs) {
  const user = await requireUser(request);
  const folderId = parseFolderId(params.folderId);
  const submission = parseWithZod(await readProtectedForm(request), { schema: MakeAddressSchema });
  invariantResponse(submission.status === "success", "Bad Request", 400);
  const hadOne = orNotFound(() => inboxAddress(user.id, folderId)) !== null;
  // Replacing stops the old address: only from the page that said so.
  if (hadOne && submission.value.intent !== "replace-address") {
    return redirect(`/folders/${folderId}/email-address?new`);
  }
  invariantResponse(makeInboxAddress(user.id, folderId), "Not Found", 404);
  return redirectWithToast(
    `/folders/${folderId}/email-address`,
    hadOne
      ? { title: "New address made", description: "The old address no longer saves anything." }
      : { title: "Address made" },
  );
}

export default function FolderEmailAddress() {
  const { folderId, name, address, accountEmail, replacing } = useLoaderData<typeof loader>();
  const here = `/folders/${folderId}/email-address`;
  return (
    <Dialog title={`Save to "${name}" by e-mail`} closeTo={`/folders/${folderId}`}>
      <p className="text-sm text-stone-700">
        Forward or send anything to this folder's own address from <strong>{accountEmail}</strong>:
        links, photos, videos, PDFs and Word files become items in {name}, and your words become
        their comment. You get one short answer saying what was saved.
      </p>
      {address ? (
        <>
          {/* Text, not an input: a long address wraps on a phone instead of being cut. */}
          <dl className="mt-4">
            <dt className="text-sm font-medium text-stone-900">This folder's address</dt>
            <dd className="mt-1 select-all break-all rounded-lg border border-stone-300 bg-stone-50 px-3 py-2 font-mono text-sm text-stone-900">
              {address}
            </dd>
          </dl>
          <div className="mt-2 flex flex-wrap items-center gap-x-4 gap-y-2">
            <CopyButton text={address} label="Copy address" />
            <a
              href={`mailto:${address}`}
              className="inline-flex min-h-11 items-center text-sm font-medium text-stone-900 underline"
            >
              Write to {name} now
            </a>
          </div>
          <p className="mt-4 text-sm text-stone-600">
            Mail from any other address is not saved. If the address got out, make a new one: the
            old one stops at once.
          </p>
        </>
      ) : null}
      {replacing ? (
        <section aria-labelledby="replace-heading" className="mt-6 rounded-lg bg-amber-50 p-4">
          <h3 id="replace-heading" className="font-medium text-amber-950">
            Make a new address?
          </h3>
          <p className="mt-1 text-sm text-amber-950">
            The address above stops at once: anything sent to it afterwards is not saved, and its
            sender is not told. Give the new one to whoever should have it.
          </p>
          <div className="mt-4 flex flex-col-reverse gap-2 sm:flex-row sm:justify-end">
            <Link to={here} className="btn-secondary" preventScrollReset replace>
              Keep this address
            </Link>
            <Form method="post" action={here}>
              <CsrfInput />
              <SubmitButton
                intent="replace-address"
                pendingText="Making the address..."
                className="btn w-full bg-red-700 text-white hover:bg-red-800"
              >
                Make a new address
              </SubmitButton>
            </Form>
          </div>
        </section>
      ) : (
        <div className="mt-6 flex flex-col-reverse gap-2 sm:flex-row sm:justify-end">
          <Link to={`/folders/${folderId}`} className="btn-secondary" preventScrollReset>
            {address ? "Done" : "Not now"}
          </Link>
          {address ? (
            <Link to={`${here}?new`} className="btn-secondary" preventScrollReset replace>
              Make a new address
            </Link>
          ) : (
            <Form method="post">
              <CsrfInput />
              <SubmitButton
                intent="make-address"
                pendingText="Making the address..."
                className="btn-primary w-full"
              >
                Get this folder's address
              </SubmitButton>
            </Form>
          )}
        </div>
      )}
    </Dialog>
  );
}

export function ErrorBoundary() {
  return <DialogErrorBoundary />;
}
