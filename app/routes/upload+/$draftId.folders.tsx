import { type ActionFunctionArgs, data, type LoaderFunctionArgs, redirect } from "@remix-run/node";
import { Form, Link, useActionData, useLoaderData } from "@remix-run/react";
import { DialogErrorBoundary } from "~/components/errors/error-boundary";
import { Dialog } from "~/components/ui/dialog";
import { CsrfInput, DefaultSubmit, FormAlert, SubmitButton } from "~/components/ui/forms";
import {
  DiscardDraftForm,
  DraftLine,
  WIZARD_TITLE,
  WizardSteps,
} from "~/components/uploads/upload-wizard";
import { readProtectedForm } from "~/modules/auth/csrf.server";
import { requireUser } from "~/modules/auth/session.server";
import { LIMITS } from "~/modules/plans/limits";
import {
  FAILED_TO_ADD_CONTENT,
  pausedMessage,
  TOO_MANY_FOLDERS,
} from "~/modules/uploads/multi-folder";
import {
  checkFolderSelection,
  finishDraft,
  folderChoices,
  getDraft,
  selectAll,
  setDraftFolders,
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

/** Step 2: the folders (1 to 10; paused ones shown but not selectable). */
export async function loader({ request, params }: LoaderFunctionArgs) {
  const user = await requireUser(request);
  const draft = orNotFound(() => getDraft(user.id, params.draftId ?? ""));
  return { draft: draftSummary(draft), folders: folderChoices(user.id) };
}

/** The chosen folders are checked by `checkFolderSelection`, whose messages the page shows. */
const FolderStepSchema = z.discriminatedUnion("intent", [
  z.object({ intent: z.literal("select-all") }),
  z.object({ intent: z.literal("next"), folderIds: z.array(z.unknown()) }),
]);

type Reply = { error: string | null; notice: string | null };

export async function action({ request, params }: ActionFunctionArgs) {
  const user = await requireUser(request);
  const formData = await readProtectedForm(request);
  const draft = orNotFound(() => getDraft(user.id, params.draftId ?? ""));
  const reply = (body: Reply, status = 200) => data(body, { status });
  const parsed = parseIntentForm(formData, FolderStepSchema);
  invariantResponse(parsed.status === "success", "Bad Request", 400);

  if (parsed.value.intent === "select-all") {
    const all = selectAll(user.id);
    setDraftFolders(user.id, draft.id, all.folderIds);
    const notes = [
      all.pausedSkipped > 0 ? pausedMessage(all.pausedSkipped) : null,
      all.truncated ? TOO_MANY_FOLDERS : null,
    ].filter(Boolean);
    return reply({ error: null, notice: notes.join(". ") || null });
  }

  const selection = checkFolderSelection(user.id, parsed.value.folderIds);
  if (!selection.ok) return reply({ error: selection.error, notice: null }, 400);
  setDraftFolders(user.id, draft.id, selection.folderIds);
  if (draft.type !== "link" && draft.type !== "musing") {
    return redirect(`/upload/${draft.id}/check`, 303);
  }
  try {
    const result = await finishDraft(user.id, draft.id, { onlyValid: false });
    return redirectWithToast(`/folders/${result.added[0]!.id}`, {
      title: `Added to ${result.added.length} ${result.added.length === 1 ? "folder" : "folders"}`,
      description: result.added.map((folder) => folder.name).join(", "),
    });
  } catch (error) {
    if (error instanceof Response) throw error;
    if (error instanceof RuleError) return reply({ error: error.message, notice: null }, 400);
    throwIfDatabaseBusy(error);
    console.error(error);
    return reply({ error: FAILED_TO_ADD_CONTENT, notice: null }, 500);
  }
}

export default function ChooseFolders() {
  const { draft, folders } = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  const selected = new Set(draft.folderIds);
  const direct = draft.type === "link" || draft.type === "musing";
  return (
    <Dialog title={WIZARD_TITLE} closeTo="/">
      <WizardSteps type={draft.type} current="folders" />
      <DraftLine draft={draft} />
      {folders.length === 0 ? (
        <p className="text-sm text-stone-700">
          You have no folders yet. <Link to="/folders/new">Create a folder</Link> first.
        </p>
      ) : (
        <Form method="post" key={draft.folderIds.join(",")} className="space-y-4">
          <DefaultSubmit intent="next" />
          <CsrfInput />
          <FormAlert errors={actionData?.error ? [actionData.error] : null} />
          {actionData?.notice ? (
            <p
              role="status"
              className="rounded-lg border border-amber-200 bg-amber-50 px-4 py-3 text-sm text-amber-900"
            >
              {actionData.notice}
            </p>
          ) : null}
          <fieldset>
            <legend className="text-sm font-medium text-stone-800">
              Choose up to {LIMITS.multiFolder.maxFolders} folders
            </legend>
            <ul className="mt-2 space-y-1">
              {folders.map((folder) => (
                <li key={folder.id}>
                  <label
                    className={`flex items-center gap-2 rounded-lg border border-stone-200 px-3 py-2 text-sm ${
                      folder.selectable ? "bg-white text-stone-900" : "bg-stone-50 text-stone-600"
                    }`}
                  >
                    <input
                      type="checkbox"
                      name="folderIds"
                      value={folder.id}
                      defaultChecked={folder.selectable && selected.has(folder.id)}
                      disabled={!folder.selectable}
                      className="h-4 w-4 rounded-sm border-stone-400"
                    />
                    <span className="flex-1">{folder.name}</span>
                    {folder.isPaused ? (
                      <span className="text-xs">Paused</span>
                    ) : folder.isUnsubscribed ? (
                      <span className="text-xs">Unsubscribed</span>
                    ) : null}
                  </label>
                </li>
              ))}
            </ul>
          </fieldset>
          <div className="flex flex-col-reverse gap-2 sm:flex-row sm:justify-between">
            <Link to={`/upload?draft=${draft.id}`} className="btn-secondary" preventScrollReset>
              Back
            </Link>
            <div className="flex flex-col-reverse gap-2 sm:flex-row">
              <SubmitButton
                intent="select-all"
                pendingText="Selecting..."
                className="btn-secondary"
              >
                Select All
              </SubmitButton>
              <SubmitButton
                intent="next"
                pendingText={direct ? "Adding..." : "Saving..."}
                className="btn-primary"
              >
                {direct ? "Add to folders" : "Next"}
              </SubmitButton>
            </div>
          </div>
        </Form>
      )}
      <DiscardDraftForm draftId={draft.id} />
    </Dialog>
  );
}

export function ErrorBoundary() {
  return <DialogErrorBoundary closeTo="/upload" />;
}
