import { parseWithZod } from "@conform-to/zod/v4";
import {
  type ActionFunctionArgs,
  data,
  type LoaderFunctionArgs,
  type MetaFunction,
} from "@remix-run/node";
import { Link, useActionData, useLoaderData } from "@remix-run/react";
import { DashboardPage } from "~/components/folders/dashboard";
import { FolderForm, NEW_FOLDER_VALUES } from "~/components/folders/folder-form";
import { Dialog } from "~/components/ui/dialog";
import { readProtectedForm } from "~/modules/auth/csrf.server";
import { requireUser } from "~/modules/auth/session.server";
import { loadDashboardPage } from "~/modules/dashboard/dashboard.server";
import { suppressedAddressRefusal } from "~/modules/deliverability/suppression-notices.server";
import { folderSchema } from "~/modules/folders/folder-validation";
import {
  allowedFrequencies,
  createFolder,
  FolderLimitError,
  folderLimitMessage,
} from "~/modules/folders/folders.server";
import { canCreateFolder, getUsage, invitesAddFolders } from "~/modules/plans/quota.server";
import { sendWelcomesSoon } from "~/modules/sending/welcomes.server";
import { RuleError, throwIfDatabaseBusy } from "~/platform/errors.server";
import { newOneTimeKey, onceForKey, oneTimeKeyOf } from "~/platform/one-time-keys.server";
import { safeRedirectPath } from "~/platform/redirect";
import { redirectWithToast } from "~/platform/toast.server";

export const meta: MetaFunction = () => [{ title: "New folder · Thoughtfully" }];

/** `?returnTo=` (a path on this site): where to go after creating, e.g. back to `/add`. */
function returnToOf(request: Request) {
  return safeRedirectPath(new URL(request.url).searchParams.get("returnTo"), "") || null;
}

export async function loader({ request }: LoaderFunctionArgs) {
  const user = await requireUser(request);
  const usage = getUsage(user.id);
  // At the limit, New opens the ways past it in place of the form, not a bounce back.
  const limitReached = canCreateFolder(usage)
    ? null
    : { message: folderLimitMessage(usage.limits.maxFolders), invite: invitesAddFolders(usage) };
  return {
    dashboard: await loadDashboardPage(request, user),
    frequencies: allowedFrequencies(user.id),
    returnTo: returnToOf(request),
    limitReached,
    oneTimeKey: newOneTimeKey(),
  };
}

export async function action({ request }: ActionFunctionArgs) {
  const user = await requireUser(request);
  const formData = await readProtectedForm(request);
  const submission = parseWithZod(formData, {
    schema: folderSchema(suppressedAddressRefusal([])),
  });
  if (submission.status !== "success") {
    return data({ result: submission.reply() }, { status: submission.status ? 400 : 200 });
  }
  try {
    const saved = onceForKey(user.id, oneTimeKeyOf(formData), () => {
      const folder = createFolder(user.id, submission.value);
      return returnToOf(request) ?? `/folders/${folder.id}`;
    });
    sendWelcomesSoon();
    return redirectWithToast(saved.location, {
      title: "Success",
      description: "Folder created successfully!",
    });
  } catch (error) {
    // The limit was reached after the form opened (another tab, the extension):
    // a folder-limit refusal is answered with the upgrade dialog (docs/product-rules.md, Folders and items).
    if (error instanceof FolderLimitError) {
      return redirectWithToast("/upgrade", {
        title: "Folder Limit Reached",
        description: error.message,
        variant: "destructive",
      });
    }
    if (error instanceof RuleError) {
      return data({ result: submission.reply({ formErrors: [error.message] }) }, { status: 400 });
    }
    throwIfDatabaseBusy(error);
    console.error(error);
    return data(
      { result: submission.reply({ formErrors: ["Failed to create folder"] }) },
      { status: 500 },
    );
  }
}

export default function NewFolder() {
  const { dashboard, frequencies, returnTo, limitReached, oneTimeKey } =
    useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  const closeTo = returnTo ?? (dashboard.selected ? `/folders/${dashboard.selected.id}` : "/");
  if (limitReached) {
    return (
      <DashboardPage data={dashboard}>
        <Dialog title="Folder Limit Reached" closeTo={closeTo}>
          <p className="text-sm text-stone-700">{limitReached.message}</p>
          <div className="mt-6 flex flex-col gap-3 sm:flex-row sm:justify-end">
            {limitReached.invite ? (
              <Link to="/invite" className="btn-secondary">
                Invite friends
              </Link>
            ) : null}
            <Link to="/upgrade" className="btn-primary">
              Upgrade to Premium
            </Link>
          </div>
        </Dialog>
      </DashboardPage>
    );
  }
  return (
    <DashboardPage data={dashboard}>
      <Dialog title="Folder Details" closeTo={closeTo}>
        <FolderForm
          lastResult={actionData?.result}
          defaultValue={NEW_FOLDER_VALUES}
          frequencies={frequencies}
          cancelTo={closeTo}
          oneTimeKey={oneTimeKey}
        />
      </Dialog>
    </DashboardPage>
  );
}
