import { type ActionFunctionArgs, data, type LoaderFunctionArgs, redirect } from "@remix-run/node";
import { Link, useActionData, useLoaderData } from "@remix-run/react";
import { ItemForm } from "~/components/items/item-form";
import { Dialog } from "~/components/ui/dialog";
import {
  DiscardDraftForm,
  DraftLine,
  TYPE_LABELS,
  WIZARD_TITLE,
  WizardSteps,
} from "~/components/uploads/upload-wizard";
import { readProtectedForm } from "~/modules/auth/csrf.server";
import { requireUser } from "~/modules/auth/session.server";
import type { StoredUpload } from "~/modules/files/upload-kinds";
import { UPLOAD_BODY_MAX_BYTES } from "~/modules/files/upload-kinds";
import { refusedUploadReply } from "~/modules/items/item-routes.server";
import { withLinkTitle } from "~/modules/items/item-titles.server";
import { NEW_ITEM } from "~/modules/items/item-validation";
import { getUsage } from "~/modules/plans/quota.server";
import { WIZARD_TYPES, type WizardType } from "~/modules/uploads/multi-folder";
import { createDraft, getDraft, updateDraftContent } from "~/modules/uploads/upload-drafts.server";
import {
  draftFormValues,
  draftSummary,
  parseWizardType,
  readContentFields,
} from "~/modules/uploads/upload-wizard.server";
import { withUpload } from "~/modules/uploads/uploads.server";
import { invariantResponse, orNotFound } from "~/platform/errors.server";
import { replayWritesToPrimary } from "~/platform/replication.server";
import type { RouteBodyLimit } from "~/platform/route-body-limit";
import { formatBytes } from "~/utils/format";

/**
 * Step 1: the content. `/upload?type=photo` starts a new draft; going back
 * (`/upload?draft=ID`) shows the draft's content to change. Photos and files
 * are stored once, here, into the draft.
 */
function draftOf(userId: number, request: Request) {
  const draftId = new URL(request.url).searchParams.get("draft");
  return draftId === null ? null : orNotFound(() => getDraft(userId, draftId));
}

/**
 * The wizard does not know its folders yet when files are chosen: its size bar
 * shows the account's storage (new files replace the draft's, so those are
 * left out). None for Premium, whose storage has no limit.
 */
function accountCapacity(userId: number, draftId: string | undefined) {
  const usage = getUsage(userId, { exceptDraftId: draftId });
  if (!Number.isFinite(usage.limits.maxStorageBytes)) return null;
  return {
    usedBytes: usage.totalStorageBytes,
    limitBytes: usage.limits.maxStorageBytes,
    label: "of your account's storage",
  };
}

/**
 * A clip is posted to `/upload/video` (video.tsx, this step with one clip's body limit,
 * docs/decisions/0227-videos-through-the-wizard-and-the-share-sheet.md); every other type here.
 */
const isVideoDoor = (params: LoaderFunctionArgs["params"]) => params.door === "video";

/** The type a new draft is of: the door's, else `?type=`. */
const typeAsked = (params: LoaderFunctionArgs["params"], request: Request) =>
  isVideoDoor(params) ? "video" : parseWizardType(new URL(request.url).searchParams.get("type"));

function contentAction(type: WizardType, draftId: string | undefined) {
  const path = type === "video" ? "/upload/video?" : "/upload?index&";
  return draftId ? `${path}draft=${draftId}` : `${path}type=${type}`;
}

export async function loader({ request, params }: LoaderFunctionArgs) {
  const user = await requireUser(request);
  const draft = draftOf(user.id, request);
  const capacity = accountCapacity(user.id, draft?.id);
  if (draft) {
    return {
      type: draft.type,
      draft: draftSummary(draft),
      values: draftFormValues(draft),
      capacity,
    };
  }
  const type = typeAsked(params, request);
  return { type, draft: null, values: NEW_ITEM, capacity };
}

/** Uploads stream up to a full item's files (docs/decisions/0101-body-limits-by-route.md); any other body is a form. */
export const bodyLimit: RouteBodyLimit = { multipart: UPLOAD_BODY_MAX_BYTES };

export async function action({ request, params }: ActionFunctionArgs) {
  await replayWritesToPrimary(request);
  const user = await requireUser(request);
  const draft = draftOf(user.id, request);
  const type = draft?.type ?? typeAsked(params, request);
  // Only the video door reads a clip, and it reads nothing else.
  invariantResponse((type === "video") === isVideoDoor(params), "Not Found", 404);
  const hadFiles = (draft?.files.length ?? 0) > 0;
  const saveStep = async (step: ReturnType<typeof readContentFields>, stored: StoredUpload[]) => {
    if (!step.ok) return data(step.reply, { status: step.status });
    if (draft) {
      await updateDraftContent(user.id, draft.id, step.fields, stored.length > 0 ? stored : null);
      return redirect(`/upload/${draft.id}/folders`, 303);
    }
    const created = await createDraft(user.id, type, step.fields, stored);
    return redirect(`/upload/${created.id}/folders`, 303);
  };
  if (type === "link" || type === "musing") {
    const step = readContentFields(await readProtectedForm(request), type, false);
    if (!step.ok) return saveStep(step, []);
    return saveStep({ ...step, fields: await withLinkTitle(user.id, step.fields) }, []);
  }
  // A draft's files count against the storage limit: "Storage Full!" keeps nothing.
  return withUpload(request, { kind: type, userId: user.id, csrf: true }, ({ formData, stored }) =>
    saveStep(readContentFields(formData, type, stored.length > 0 || hadFiles), stored),
  ).catch((error: unknown) => refusedUploadReply(error, type));
}

export default function UploadContent() {
  const { type, draft, values, capacity } = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  const isUpload = type === "photo" || type === "file" || type === "video";
  const noun = type === "photo" ? "photos" : type === "video" ? "video" : "files";
  const oneOf = type === "photo" ? "photo" : type === "video" ? "video" : "file";
  return (
    <Dialog title={WIZARD_TITLE} closeTo="/">
      <WizardSteps type={type} current="content" />
      {draft ? (
        <DraftLine draft={draft} />
      ) : (
        <nav aria-label="Content type" className="mb-4 flex flex-wrap gap-2">
          {WIZARD_TYPES.map((option) => (
            <Link
              key={option}
              to={`/upload?type=${option}`}
              replace
              preventScrollReset
              aria-current={option === type ? "page" : undefined}
              className={`inline-flex min-h-11 min-w-11 items-center rounded-full border px-4 text-sm ${
                option === type
                  ? "border-brand-700 bg-brand-700 text-white"
                  : "border-stone-300 bg-white text-stone-800 hover:bg-stone-100"
              }`}
            >
              {TYPE_LABELS[option]}
            </Link>
          ))}
        </nav>
      )}
      {draft && isUpload && draft.files.length > 0 ? (
        <div className="mb-4 text-sm text-stone-700">
          <p className="font-medium">Chosen {noun}</p>
          <ul className="mt-1 list-disc pl-5">
            {draft.files.map((file) => (
              <li key={file.index}>
                {file.name} ({formatBytes(file.size)})
              </li>
            ))}
          </ul>
          <p className="mt-1 text-xs text-stone-600">
            {draft.files.length === 1
              ? `Choosing another ${oneOf} replaces it.`
              : `Choosing new ${noun} replaces these.`}
          </p>
        </div>
      ) : null}
      <ItemForm
        key={draft?.id ?? type}
        type={type}
        mode={draft && draft.files.length > 0 ? "edit" : "add"}
        action={contentAction(type, draft?.id)}
        lastResult={actionData?.result}
        uploadProblem={actionData?.problem}
        defaultValue={values}
        recipientNames={[]}
        cancelTo={draft ? `/upload/${draft.id}/folders` : "/"}
        submitText={{ idle: "Next", pending: "Saving..." }}
        capacity={capacity}
      />
      {draft ? <DiscardDraftForm draftId={draft.id} /> : null}
    </Dialog>
  );
}
