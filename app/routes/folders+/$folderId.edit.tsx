import { parseWithZod } from "@conform-to/zod/v4";
import {
  type ActionFunctionArgs,
  data,
  type LoaderFunctionArgs,
  type MetaFunction,
} from "@remix-run/node";
import { useActionData, useLoaderData } from "@remix-run/react";
import { DialogErrorBoundary } from "~/components/errors/error-boundary";
import { FolderForm, type FolderFormValues } from "~/components/folders/folder-form";
import { Dialog } from "~/components/ui/dialog";
import { readProtectedForm } from "~/modules/auth/csrf.server";
import { requireUser } from "~/modules/auth/session.server";
import { suppressedAddressRefusal } from "~/modules/deliverability/suppression-notices.server";
import { parseFolderId } from "~/modules/folders/folder-params.server";
import { folderSchema } from "~/modules/folders/folder-validation";
import {
  allowedFrequencies,
  getFolder,
  recipientsOf,
  updateFolder,
} from "~/modules/folders/folders.server";
import { refreshFolderSubscription } from "~/modules/recipients/opt-outs.server";
import { sendWelcomesSoon } from "~/modules/sending/welcomes.server";
import { orNotFound, RuleError, throwIfDatabaseBusy } from "~/platform/errors.server";
import { redirectWithToast } from "~/platform/toast.server";

export const meta: MetaFunction = () => [{ title: "Folder Details · Thoughtfully" }];

export async function loader({ request, params }: LoaderFunctionArgs) {
  const user = await requireUser(request);
  const folder = orNotFound(() => getFolder(user.id, parseFolderId(params.folderId)));
  const frequencies = allowedFrequencies(user.id);
  const values: FolderFormValues = {
    name: folder.name,
    recipients: recipientsOf(folder),
    frequency: frequencies.includes(folder.frequency) ? folder.frequency : "weekly",
    dayOfWeek: folder.dayOfWeek,
    dayOfMonth: folder.dayOfMonth ?? 1,
    ccSender: folder.ccSender,
    signoffEnabled: Boolean(folder.personalSignoff),
    personalSignoff: folder.personalSignoff ?? "",
    answerEmails: folder.answerEmails,
  };
  return { folderId: folder.id, values, frequencies };
}

export async function action({ request, params }: ActionFunctionArgs) {
  const user = await requireUser(request);
  const folderId = parseFolderId(params.folderId);
  const formData = await readProtectedForm(request);
  const folder = orNotFound(() => getFolder(user.id, folderId));
  const listed = recipientsOf(folder).map((recipient) => recipient.email);
  const submission = parseWithZod(formData, {
    schema: folderSchema(suppressedAddressRefusal(listed)),
  });
  if (submission.status !== "success") {
    return data({ result: submission.reply() }, { status: submission.status ? 400 : 200 });
  }
  try {
    updateFolder(user.id, folderId, submission.value);
    // New recipients can make a fully unsubscribed folder sendable again.
    refreshFolderSubscription(folderId);
    sendWelcomesSoon();
  } catch (error) {
    if (error instanceof RuleError) {
      return data({ result: submission.reply({ formErrors: [error.message] }) }, { status: 400 });
    }
    throwIfDatabaseBusy(error);
    console.error(error);
    return data(
      { result: submission.reply({ formErrors: ["Failed to update folder"] }) },
      { status: 500 },
    );
  }
  return redirectWithToast(`/folders/${folderId}`, {
    title: "Success",
    description: "Folder settings updated successfully!",
  });
}

export default function EditFolder() {
  const { folderId, values, frequencies } = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  return (
    <Dialog title="Folder Details" closeTo={`/folders/${folderId}`}>
      <FolderForm
        lastResult={actionData?.result}
        defaultValue={values}
        frequencies={frequencies}
        cancelTo={`/folders/${folderId}`}
      />
    </Dialog>
  );
}

export function ErrorBoundary() {
  return <DialogErrorBoundary />;
}
