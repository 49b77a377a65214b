import { type ActionFunctionArgs, data, type LoaderFunctionArgs, redirect } from "@remix-run/node";
import { Form, Link, useActionData, useLoaderData, useLocation, useSubmit } from "@remix-run/react";
import { useEffect, useRef, useState } from "react";
import { useHydrated } from "remix-utils/use-hydrated";
import { DialogErrorBoundary } from "~/components/errors/error-boundary";
import { type DataColumn, DataTable } from "~/components/ui/data-table";
import { Dialog } from "~/components/ui/dialog";
import { CsrfInput, FormAlert, SubmitButton } from "~/components/ui/forms";
import {
  DiscardDraftForm,
  DraftLine,
  WIZARD_TITLE,
  WizardSteps,
} from "~/components/uploads/upload-wizard";
import { readProtectedForm } from "~/modules/auth/csrf.server";
import { requireUser } from "~/modules/auth/session.server";
import { FAILED_TO_ADD_CONTENT, NO_VALID_FOLDERS } from "~/modules/uploads/multi-folder";
import {
  DraftRuleError,
  finishDraft,
  finishDraftForFolder,
  getDraft,
  type MultiFolderValidation,
  validateDraft,
} from "~/modules/uploads/upload-drafts.server";
import { draftSummary } from "~/modules/uploads/upload-wizard.server";
import {
  invariantResponse,
  orNotFound,
  RuleError,
  throwIfDatabaseBusy,
} from "~/platform/errors.server";
import { parseIntentForm } from "~/platform/intent.server";
import { redirectWithToast } from "~/platform/toast.server";
import { z } from "~/platform/zod";
import { formatBytes } from "~/utils/format";

const AUTO_START_MS = 1500;
const CHECK_TIMEOUT_MS = 10_000;

/** Step 3 (photos and files): can each chosen folder, and the account, take the upload? */
export async function loader({ request, params }: LoaderFunctionArgs) {
  const user = await requireUser(request);
  const draft = orNotFound(() => getDraft(user.id, params.draftId ?? ""));
  if (draft.type === "link" || draft.type === "musing" || draft.folderIds.length === 0) {
    throw redirect(`/upload/${draft.id}/folders`);
  }
  const { userValidation, folderValidations, uploadSize } = validateDraft(user.id, draft);
  return {
    draft: draftSummary(draft),
    validation: { userValidation, folderValidations, uploadSize },
  };
}

const names = (folders: { name: string }[]) => folders.map((folder) => folder.name).join(", ");

/** "Upload to folders one by one": the draft's files to the one folder named by `folderId`. */
async function uploadToOneFolder(userId: number, draftId: string, folderIdValue: unknown) {
  const folderId = Number(folderIdValue);
  if (!Number.isSafeInteger(folderId) || folderId <= 0) {
    throw new DraftRuleError("Invalid folder ID");
  }
  const { folder, finished } = await finishDraftForFolder(userId, draftId, folderId);
  return redirectWithToast(finished ? `/folders/${folder.id}` : `/upload/${draftId}/check`, {
    title: "Uploaded to 1 folder",
    description: folder.name,
  });
}

/**
 * Upload to the folders that can take it, skip the check that failed, or
 * upload to one folder (whose `folderId` is checked with the draft's rules).
 */
const UploadStepSchema = z.discriminatedUnion("intent", [
  z.object({ intent: z.literal("upload") }),
  z.object({ intent: z.literal("skip") }),
  z.object({ intent: z.literal("one"), folderId: z.unknown() }),
]);

export async function action({ request, params }: ActionFunctionArgs) {
  const user = await requireUser(request);
  const formData = await readProtectedForm(request);
  const draft = orNotFound(() => getDraft(user.id, params.draftId ?? ""));
  const parsed = parseIntentForm(formData, UploadStepSchema);
  invariantResponse(parsed.status === "success", "Bad Request", 400);
  const step = parsed.value;
  const { intent } = step;
  try {
    if (step.intent === "one") return await uploadToOneFolder(user.id, draft.id, step.folderId);
    const result = await finishDraft(user.id, draft.id, { onlyValid: intent === "upload" });
    const title = `Uploaded to ${result.added.length} ${result.added.length === 1 ? "folder" : "folders"}`;
    if (result.finished) {
      return redirectWithToast(`/folders/${result.added[0]!.id}`, {
        title,
        description: names(result.added),
      });
    }
    return redirectWithToast(`/upload/${draft.id}/check`, {
      title: result.added.length > 0 ? title : "Nothing uploaded",
      description: `${result.added.length > 0 ? `Added to ${names(result.added)}. ` : ""}Not uploaded to ${names(result.refused)}: not enough space. Use Send Now on a full folder, then check again.`,
      variant: result.added.length > 0 ? "default" : "destructive",
    });
  } catch (error) {
    if (error instanceof Response) throw error;
    if (error instanceof RuleError) return data({ error: error.message }, { status: 400 });
    throwIfDatabaseBusy(error);
    console.error(error);
    return data({ error: FAILED_TO_ADD_CONTENT }, { status: 500 });
  }
}

type CheckState =
  | { status: "loading" }
  | { status: "success"; validation: MultiFolderValidation }
  | { status: "error" }
  | { status: "timeout" }
  | { status: "signed_out" };

export default function CheckFolders() {
  const loaded = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  const hydrated = useHydrated();
  const submit = useSubmit();
  const location = useLocation();
  const { draft } = loaded;
  const [state, setState] = useState<CheckState>({
    status: "success",
    validation: loaded.validation,
  });
  const uploadForm = useRef<HTMLFormElement>(null);
  useEffect(() => setState({ status: "success", validation: loaded.validation }), [loaded]);

  async function checkAgain() {
    setState({ status: "loading" });
    try {
      const response = await fetch(`/upload/${draft.id}/validate`, {
        signal: AbortSignal.timeout(CHECK_TIMEOUT_MS),
        headers: { Accept: "application/json" },
      });
      // Inside the wizard a lost session is said in place, with no redirect (docs/product-rules.md, Uploads).
      if (response.status === 401) return setState({ status: "signed_out" });
      if (!response.ok) throw new Error(`${response.status}`);
      setState({ status: "success", validation: (await response.json()) as MultiFolderValidation });
    } catch (error) {
      const timedOut = error instanceof DOMException && error.name === "TimeoutError";
      setState({ status: timedOut ? "timeout" : "error" });
    }
  }

  const validation = state.status === "success" ? state.validation : null;
  const accepting = validation?.folderValidations.filter((folder) => folder.canAccept) ?? [];
  const everyFolder =
    validation !== null &&
    accepting.length === validation.folderValidations.length &&
    validation.userValidation.canUpload;
  const autoStart = hydrated && everyFolder && !actionData?.error;

  useEffect(() => {
    if (!autoStart) return;
    const timer = setTimeout(() => {
      if (!uploadForm.current) return;
      // No button is pressed, so the form does not say which upload: this is the button's.
      const formData = new FormData(uploadForm.current);
      formData.set("intent", "upload");
      submit(formData, { method: "post" });
    }, AUTO_START_MS);
    return () => clearTimeout(timer);
  }, [autoStart, submit]);

  const back = (
    <Link to={`/upload/${draft.id}/folders`} className="btn-secondary" preventScrollReset>
      Back
    </Link>
  );
  const retry = hydrated ? (
    <button type="button" onClick={checkAgain} className="btn-secondary">
      {state.status === "success" ? "Check again" : "Retry"}
    </button>
  ) : (
    <Link to={`/upload/${draft.id}/check`} className="btn-secondary">
      Check again
    </Link>
  );

  return (
    <Dialog title={WIZARD_TITLE} closeTo="/">
      <WizardSteps type={draft.type} current="check" />
      <DraftLine draft={draft} />
      <FormAlert errors={actionData?.error ? [actionData.error] : null} />
      {state.status === "loading" ? (
        <p role="status" className="py-6 text-center text-sm text-stone-700">
          Checking folder limits...
        </p>
      ) : null}
      {state.status === "error" ? (
        <div role="alert" className="rounded-lg border border-red-200 bg-red-50 px-4 py-3 text-sm">
          <p className="font-semibold text-red-900">Something went wrong</p>
          <p className="mt-1 text-red-800">
            We couldn't check folder limits right now. Please try again.
          </p>
        </div>
      ) : null}
      {state.status === "timeout" ? (
        <div
          role="alert"
          className="rounded-lg border border-amber-200 bg-amber-50 px-4 py-3 text-sm"
        >
          <p className="font-semibold text-amber-900">
            Sorry about this, but we're having trouble checking folder limits
          </p>
          <p className="mt-1 text-amber-900">
            Try again, go back, skip the check, or upload to your folders one by one: every folder's
            limit is still checked as the files are added.
          </p>
          <OneByOne draftId={draft.id} folders={loaded.validation.folderValidations} />
        </div>
      ) : null}
      {state.status === "signed_out" ? (
        <div role="alert" className="rounded-lg border border-red-200 bg-red-50 px-4 py-3 text-sm">
          <p className="font-semibold text-red-900">Please log in again to continue.</p>
          <Link
            to={`/login?${new URLSearchParams({ redirectTo: location.pathname })}`}
            className="mt-2 inline-block font-medium text-red-900 underline"
          >
            Log in
          </Link>
        </div>
      ) : null}
      {validation ? <ValidationTable validation={validation} /> : null}
      {validation && accepting.length === 0 ? <FormAlert errors={[NO_VALID_FOLDERS]} /> : null}
      {everyFolder ? (
        <p role="status" className="mt-3 text-sm text-brand-900">
          Every folder can take this upload.{hydrated ? " Starting the upload..." : null}
        </p>
      ) : null}

      <div className="mt-5 flex flex-wrap justify-end gap-2">
        {back}
        {retry}
        <Form method="post" ref={uploadForm}>
          <CsrfInput />
          {state.status === "success" ? (
            accepting.length > 0 ? (
              <SubmitButton intent="upload" pendingText="Uploading..." className="btn-primary">
                {everyFolder
                  ? `Upload to ${accepting.length} ${accepting.length === 1 ? "folder" : "folders"}`
                  : `Upload to ${accepting.length} valid ${accepting.length === 1 ? "folder" : "folders"}`}
              </SubmitButton>
            ) : null
          ) : state.status === "error" || state.status === "timeout" ? (
            <SubmitButton intent="skip" pendingText="Uploading..." className="btn-primary">
              Skip and upload
            </SubmitButton>
          ) : null}
        </Form>
      </div>
      <DiscardDraftForm draftId={draft.id} />
    </Dialog>
  );
}

/** One form per chosen folder, each uploading the draft's files to that folder alone. */
function OneByOne({
  draftId,
  folders,
}: {
  draftId: string;
  folders: { folderId: number; folderName: string }[];
}) {
  return (
    <ul aria-label="Upload to folders one by one" className="mt-3 flex flex-wrap gap-2">
      {folders.map((folder) => (
        <li key={folder.folderId}>
          <Form method="post" action={`/upload/${draftId}/check`}>
            <CsrfInput />
            <input type="hidden" name="folderId" value={folder.folderId} />
            <SubmitButton intent="one" pendingText="Uploading..." className="btn-secondary">
              {`Upload to ${folder.folderName}`}
            </SubmitButton>
          </Form>
        </li>
      ))}
    </ul>
  );
}

const FOLDER_LIMIT_COLUMNS: DataColumn<MultiFolderValidation["folderValidations"][number]>[] = [
  {
    id: "folder",
    header: "Folder",
    rowHeader: true,
    cell: (folder) => folder.folderName,
  },
  {
    id: "can-accept",
    header: "Can accept?",
    cell: (folder) =>
      folder.canAccept ? (
        <span className="text-brand-800">Yes</span>
      ) : (
        <span className="text-red-700">
          {folder.sizeAfterUpload > folder.maxSize ? "No, too full. " : "No. "}
          <Link to={`/folders/${folder.folderId}`} className="underline">
            Send Now
          </Link>
        </span>
      ),
  },
  { id: "now", header: "Now", cell: (folder) => formatBytes(folder.currentSize) },
  { id: "limit", header: "Limit", cell: (folder) => formatBytes(folder.maxSize) },
  { id: "after", header: "After", cell: (folder) => formatBytes(folder.sizeAfterUpload) },
];

function ValidationTable({ validation }: { validation: MultiFolderValidation }) {
  const { userValidation, folderValidations, uploadSize } = validation;
  return (
    <div className="space-y-3">
      <DataTable
        caption="Folder limits"
        captionHidden
        rows={folderValidations}
        rowKey={(folder) => folder.folderId}
        columns={FOLDER_LIMIT_COLUMNS}
      />
      <p className={`text-sm ${userValidation.canUpload ? "text-stone-700" : "text-red-700"}`}>
        {userValidation.canUpload
          ? `Your account has room for this upload (${formatBytes(uploadSize)} per folder).`
          : "Your account storage is full: use Send Now on a folder or upgrade to Premium."}
      </p>
    </div>
  );
}

export function ErrorBoundary() {
  return <DialogErrorBoundary closeTo="/upload" />;
}
