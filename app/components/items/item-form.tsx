import {
  getFormProps,
  getInputProps,
  getTextareaProps,
  type Submission,
  type SubmissionResult,
  useForm,
} from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import { Form, Link } from "@remix-run/react";
import { type KeyboardEvent, useCallback, useEffect, useState } from "react";
import { useHydrated } from "remix-utils/use-hydrated";
import { FilePicker, type UploadCapacity } from "~/components/items/file-picker";
import {
  type UploadAnswer,
  UploadProgress,
  useUploadWithProgress,
} from "~/components/items/upload-progress";
import { useLinkTitle } from "~/components/items/use-link-title";
import { DraftOnDeviceStatus, useDraftOnDevice } from "~/components/offline/draft-on-device";
import { ErrorSummary, type SummaryError } from "~/components/ui/error-summary";
import {
  CsrfInput,
  DefaultSubmit,
  ErrorList,
  Field,
  OneTimeKeyInput,
  SubmitButton,
  useKeptDraft,
} from "~/components/ui/forms";
import {
  INVALID_URL_ON_KEY,
  type ItemFormValues,
  type ItemType,
  isValidUrl,
  KEPT_FILES_FIELD,
  type KeptFiles,
  keptSentence,
  normalizeUrl,
  QuickLinkSchema,
  schemaFor,
  type UploadProblem,
} from "~/modules/items/item-validation";
import { LIMITS } from "~/modules/plans/limits";
import { maxFilesFor } from "~/modules/uploads/file-checks";
import { getFormConstraint } from "~/platform/form-constraint";
import type { z } from "~/platform/zod";
import { pluralize } from "~/utils/format";

const textareaClass =
  "mt-1 block w-full rounded-lg border border-stone-300 bg-white px-3 py-2 text-stone-900";

/** "Mum", "Mum and Dad", or "this group" (the prompt names the recipients: docs/product-rules.md, Folders and items). */
export function recipientPhrase(names: string[]) {
  if (names.length === 1) return names[0]!;
  if (names.length === 2) return `${names[0]} and ${names[1]}`;
  return "this group";
}

function TextCounter({ value }: { value: string | undefined }) {
  const hydrated = useHydrated();
  if (!hydrated) return null;
  return (
    <p className="mt-1 text-right text-xs text-stone-600" aria-live="polite">
      {(value ?? "").length}/{LIMITS.item.textMaxLength}
    </p>
  );
}

/**
 * The add/edit content form for every item type. Without JavaScript every
 * field is simply shown (both text areas, all URL fields) and adding a URL
 * field is a submit button the server answers with the form re-rendered.
 */
export function ItemForm({
  type,
  mode,
  lastResult,
  defaultValue,
  recipientNames,
  cancelTo,
  uploadProblem,
  kept: keptByRoute,
  currentFileCount = 0,
  capacity,
  action,
  submitText,
  quickSave = false,
  oneTimeKey,
  pendingIn,
}: {
  type: ItemType;
  mode: "add" | "edit";
  lastResult?: SubmissionResult<string[]> | null;
  defaultValue: ItemFormValues;
  recipientNames: string[];
  cancelTo: string;
  uploadProblem?: UploadProblem | null;
  /** Files a refused form left on the server (an Add sheet's): sent again without a new pick. */
  kept?: KeptFiles | null;
  currentFileCount?: number;
  /** For photos and files: the room the upload goes into, for the draft size bar. */
  capacity?: UploadCapacity | null;
  /** Where the form posts (default: the current route). */
  action?: string;
  /** Button labels instead of Add / Save (the multi-folder wizard's "Next"). */
  submitText?: { idle: string; pending: string };
  /** A link saved from the share sheet or the browser: title and note may wait (docs/decisions/0134-quick-saves-wait-for-a-note.md). */
  quickSave?: boolean;
  /** A new item's one-time key (app/platform/one-time-keys.server.ts): sent twice, saved once. */
  oneTimeKey?: string;
  /** A new item's folder: submitted with no signal, it waits there on the phone (pending-saves.tsx). */
  pendingIn?: { folderId: number };
}) {
  const hydrated = useHydrated();
  const isUpload = type === "photo" || type === "file" || type === "video";
  const upload = useUploadWithProgress();
  // The server's latest answer: an upload sent with progress answers here, not to the route.
  const answer: UploadAnswer | null =
    upload.answer ??
    (lastResult || uploadProblem
      ? { result: lastResult, problem: uploadProblem, kept: keptByRoute }
      : null);
  const kept = answer?.kept ?? null;
  // One form for four schemas: typed by its fields, validated by the type's schema.
  const schema: z.ZodType = quickSave ? QuickLinkSchema : schemaFor(type);
  const keptDraft = useKeptDraft();
  const [form, fields] = useForm<ItemFormValues, unknown>({
    id: `item-${type}`,
    lastResult: answer?.result ?? keptDraft,
    defaultValue,
    constraint: getFormConstraint(schema),
    shouldValidate: "onSubmit",
    shouldRevalidate: "onInput",
    onValidate: ({ formData }) =>
      parseWithZod(formData, { schema }) as Submission<ItemFormValues, string[], unknown>,
  });
  const [addComment, setAddComment] = useState(fields.addComment.initialValue === "on");
  const [askQuestion, setAskQuestion] = useState(fields.askQuestion.initialValue === "on");
  const onDevice = useDraftOnDevice(form.id, {
    refillFromDevice: !answer && !keptDraft,
    pendingIn,
  });
  const urls = fields.urls.getFieldList();
  const titleName = fields.title.name;
  const { update } = form;
  const fillTitle = useCallback(
    (value: string) => update({ name: titleName, value }),
    [update, titleName],
  );
  const linkTitle = useLinkTitle({
    // Quick saves fill an empty title when saved (docs/decisions/0134-quick-saves-wait-for-a-note.md).
    address: type === "link" && !quickSave ? urls[0]?.value : undefined,
    title: fields.title.value,
    fill: fillTitle,
  });
  // Set when Enter or Tab adds a link field: the new field takes the focus once it is rendered.
  const [focusNewLink, setFocusNewLink] = useState(false);
  const lastUrlId = urls.at(-1)?.id;
  useEffect(() => {
    if (!focusNewLink || !lastUrlId) return;
    setFocusNewLink(false);
    document.getElementById(lastUrlId)?.focus();
  }, [focusNewLink, lastUrlId]);

  // The link field whose Enter or Tab was refused for not holding a URL.
  const [invalidOnKey, setInvalidOnKey] = useState<number | null>(null);

  /**
   * Links are "added by Enter or Tab" (docs/product-rules.md, Folders and items). Enter always adds a field (instead
   * of submitting); Tab only from a filled-in last field, so Tab from an empty
   * one, or Shift+Tab, still moves on through the form. A field that does not
   * hold a URL adds nothing and says so; Tab still moves on (no keyboard trap).
   */
  function addLinkOnKey(event: KeyboardEvent<HTMLInputElement>, index: number) {
    if (urls.length >= LIMITS.item.maxLinks) return;
    const typed = event.currentTarget.value.trim();
    const isLast = index === urls.length - 1;
    const tabFromFilledLast = event.key === "Tab" && !event.shiftKey && isLast && typed !== "";
    if (event.key !== "Enter" && !tabFromFilledLast) return;
    if (typed !== "" && !isValidUrl(normalizeUrl(typed))) {
      if (event.key === "Enter") event.preventDefault();
      setInvalidOnKey(index);
      return;
    }
    event.preventDefault();
    setInvalidOnKey(null);
    form.insert({ name: fields.urls.name, defaultValue: "" });
    setFocusNewLink(true);
  }
  const maxFiles = maxFilesFor(type === "photo" || type === "video" ? type : "file");
  const expectation = fields.responseExpectation;
  const filesId = `${form.id}-files`;
  const problem = answer?.problem;
  const formProps = getFormProps(form);
  const submitLabel = submitText?.idle ?? (mode === "add" ? "Add" : "Save");

  return (
    <Form
      method="post"
      action={action}
      encType={isUpload ? "multipart/form-data" : undefined}
      {...formProps}
      onSubmit={(event) => {
        // Checked first, so what waits for the network is what the server will take.
        if (isUpload && hydrated) {
          upload.onSubmit(
            event,
            (submit) => {
              formProps.onSubmit(submit);
              if (!submit.defaultPrevented) onDevice.waitForNetwork(submit);
            },
            onDevice.forget,
          );
        } else {
          formProps.onSubmit(event);
          if (!event.defaultPrevented) onDevice.waitForNetwork(event);
        }
      }}
      // The schema's messages, next to their fields, with or without JavaScript: the
      // browser's own check of type=url would refuse "example.com", which is accepted.
      noValidate
      className="space-y-4"
      preventScrollReset
    >
      <DefaultSubmit />
      <CsrfInput />
      <OneTimeKeyInput value={oneTimeKey} />
      {/* Before the files, so that a refusal while they are read still knows what was kept. */}
      {kept ? <input type="hidden" name={KEPT_FILES_FIELD} value={kept.draftId} /> : null}
      <ErrorSummary
        answer={answer}
        errors={summaryErrors(form.id, form.allErrors, problem, isUpload ? filesId : undefined)}
      />
      {type === "link" ? (
        <fieldset className="space-y-2">
          <legend className="text-sm font-medium text-stone-800">Links</legend>
          {urls.map((url, index) => (
            <div key={url.key} className="flex items-start gap-2">
              <div className="flex-1">
                <label htmlFor={url.id} className="sr-only">
                  Link {index + 1}
                </label>
                <input
                  {...getInputProps(url, { type: "url" })}
                  key={url.key}
                  autoComplete="url"
                  placeholder="https://"
                  aria-label={`Link ${index + 1}`}
                  className="block w-full rounded-lg border border-stone-300 bg-white px-3 py-2"
                  onKeyDown={(event) => addLinkOnKey(event, index)}
                  onInput={() => {
                    if (invalidOnKey === index) setInvalidOnKey(null);
                  }}
                />
                <ErrorList
                  id={url.errorId}
                  errors={invalidOnKey === index ? [INVALID_URL_ON_KEY] : url.errors}
                />
              </div>
              {urls.length > 1 ? (
                <button
                  {...form.remove.getButtonProps({ name: fields.urls.name, index })}
                  className="btn-small"
                  aria-label={`Remove link ${index + 1}`}
                >
                  Remove
                </button>
              ) : null}
            </div>
          ))}
          <ErrorList errors={fields.urls.errors} />
          {urls.length < LIMITS.item.maxLinks ? (
            <button
              {...form.insert.getButtonProps({ name: fields.urls.name, defaultValue: "" })}
              className="btn-small"
            >
              Add another link
            </button>
          ) : (
            <p className="text-xs text-stone-600">Maximum of 5 links reached</p>
          )}
        </fieldset>
      ) : null}

      <Field
        label="Title"
        hint={
          linkTitle.looking
            ? "Reading the page's title…"
            : type === "link"
              ? "Left empty, the page's own title is used."
              : undefined
        }
        errors={fields.title.errors}
        inputProps={{
          ...getInputProps(fields.title, { type: "text" }),
          // The schema checks it in a refinement (item-validation.ts), so say it here; a
          // link's is filled in by the app.
          required: type !== "link" && !quickSave,
          maxLength: LIMITS.item.titleMaxLength,
        }}
      />

      {type === "musing" ? (
        <div>
          <label htmlFor={fields.note.id} className="block text-sm font-medium text-stone-800">
            Note
          </label>
          <textarea
            {...getTextareaProps(fields.note)}
            key={fields.note.key}
            rows={6}
            maxLength={LIMITS.item.textMaxLength}
            className={textareaClass}
          />
          <TextCounter value={fields.note.value} />
          <ErrorList errors={fields.note.errors} />
        </div>
      ) : null}

      {isUpload && kept ? <KeptFilesNote type={type} kept={kept} /> : null}
      {isUpload ? (
        <FilePicker
          kind={type}
          id={filesId}
          label={type === "photo" ? "Photos" : type === "video" ? "Video" : "Files"}
          required={mode === "add" && !kept}
          alreadyStored={currentFileCount}
          capacity={capacity}
          refused={problem}
          hint={
            type === "photo"
              ? `Up to ${pluralize(maxFiles - currentFileCount, "more photo", "more photos")} (JPEG, PNG, GIF, WebP or HEIC), 10MB each.`
              : type === "video"
                ? `One clip (MP4, MOV or WebM), up to ${Math.round(LIMITS.video.maxUploadBytes / (1024 * 1024))}MB and ${LIMITS.video.maxSecondsFree} seconds (${LIMITS.video.maxSecondsPremium / 60} minutes with Premium).`
                : `Up to ${pluralize(maxFiles - currentFileCount, "more file", "more files")} (PDF, DOC or DOCX), 10MB each.`
          }
        />
      ) : null}

      {type !== "musing" ? (
        <fieldset className="stack-y-3">
          <legend className="text-sm font-medium text-stone-800">Why are you sharing this?</legend>
          {quickSave ? (
            <p className="text-xs text-stone-600">
              You can also write this later: until then the link waits in the folder and is not
              sent.
            </p>
          ) : null}
          <ErrorList errors={fields.addComment.errors} />
          <label className="flex min-h-11 items-center gap-2 text-sm text-stone-800">
            <input
              {...getInputProps(fields.addComment, { type: "checkbox" })}
              key={fields.addComment.key}
              onChange={(event) => setAddComment(event.currentTarget.checked)}
              className="h-4 w-4 rounded-sm border-stone-400"
            />
            Leave a comment
          </label>
          {!hydrated || addComment ? (
            <div>
              <label htmlFor={fields.commentText.id} className="sr-only">
                Comment
              </label>
              <textarea
                {...getTextareaProps(fields.commentText)}
                key={fields.commentText.key}
                rows={3}
                placeholder="Your comment"
                className={textareaClass}
              />
              <TextCounter value={fields.commentText.value} />
              <ErrorList errors={fields.commentText.errors} />
            </div>
          ) : null}
          <label className="flex min-h-11 items-center gap-2 text-sm text-stone-800">
            <input
              {...getInputProps(fields.askQuestion, { type: "checkbox" })}
              key={fields.askQuestion.key}
              onChange={(event) => setAskQuestion(event.currentTarget.checked)}
              className="h-4 w-4 rounded-sm border-stone-400"
            />
            Ask a question
          </label>
          {!hydrated || askQuestion ? (
            <div>
              <label htmlFor={fields.questionText.id} className="sr-only">
                Question
              </label>
              <textarea
                {...getTextareaProps(fields.questionText)}
                key={fields.questionText.key}
                rows={3}
                placeholder="Your question"
                className={textareaClass}
              />
              <TextCounter value={fields.questionText.value} />
              <ErrorList errors={fields.questionText.errors} />
            </div>
          ) : null}
        </fieldset>
      ) : null}

      {type !== "musing" ? (
        <fieldset>
          <legend className="text-sm font-medium text-stone-800">
            Do you expect a reply from {recipientPhrase(recipientNames)}?
          </legend>
          <div className="mt-2 grid gap-2 sm:grid-cols-3">
            {(
              [
                ["na", "N/A", "Just sharing"],
                ["none", "None", "No reply needed"],
                ["yes", "Yes", "I'd love to hear back"],
              ] as const
            ).map(([value, label, hint]) => (
              <label
                key={value}
                className="flex cursor-pointer items-start gap-2 rounded-lg border border-stone-300 bg-white p-2 text-sm"
              >
                <input
                  type="radio"
                  name={expectation.name}
                  value={value}
                  defaultChecked={(expectation.initialValue ?? "na") === value}
                  className="mt-1"
                />
                <span>
                  <span className="font-medium text-stone-900">{label}</span>
                  <span className="block text-xs text-stone-600">{hint}</span>
                </span>
              </label>
            ))}
          </div>
        </fieldset>
      ) : null}

      {isUpload ? (
        upload.progress ? (
          <UploadProgress progress={upload.progress} />
        ) : (
          <p className="text-xs text-stone-600">
            Your {type === "photo" ? "photos" : "files"} upload when you press {submitLabel}; this
            can take a minute on a phone.{" "}
            {submitText
              ? "Then you choose the folders."
              : `Then the folder opens with the ${mode === "add" ? "new" : "changed"} item highlighted.`}
          </p>
        )
      ) : null}

      <DraftOnDeviceStatus state={onDevice.state} uploads={isUpload} onDiscard={onDevice.discard} />
      <div className="flex flex-col-reverse gap-2 sm:flex-row sm:justify-end">
        <Link to={cancelTo} className="btn-secondary" preventScrollReset>
          Cancel
        </Link>
        <SubmitButton
          pendingText={submitText?.pending ?? (mode === "add" ? "Adding..." : "Saving...")}
          className="btn-primary"
          sending={upload.progress !== null}
        >
          {submitLabel}
        </SubmitButton>
      </div>
    </Form>
  );
}

/**
 * The files a refused form kept on the server: named, so the sender knows the next Add needs
 * no new pick, and what choosing again does (the wizard's wording, app/routes/upload+/index.tsx).
 */
function KeptFilesNote({ type, kept }: { type: ItemType; kept: KeptFiles }) {
  const noun = type === "photo" ? "photos" : type === "video" ? "video" : "files";
  const oneOf = type === "photo" ? "photo" : type === "video" ? "video" : "file";
  const them = kept.names.length === 1 ? "it" : "them";
  return (
    <div role="status" className="rounded-lg border border-stone-200 bg-stone-50 px-3 py-2 text-sm">
      <p className="font-medium text-stone-900">
        {keptSentence(kept.names)}: no need to choose {them} again.
      </p>
      <p className="mt-1 text-xs text-stone-600">
        {kept.names.length === 1
          ? `Choosing another ${oneOf} replaces it.`
          : `Choosing new ${noun} replaces these.`}
      </p>
    </div>
  );
}

/** What each field is called in the error summary, which links to it. */
const FIELD_NAMES: Record<string, string> = {
  title: "The title",
  urls: "The links",
  note: "The note",
  addComment: "Why you are sharing this",
  commentText: "The comment",
  askQuestion: "Why you are sharing this",
  questionText: "The question",
  responseExpectation: "The reply you expect",
};

/**
 * The error summary's lines: the upload's problem (a refused file, a full folder) and the form's
 * own messages in full, linked to the file field that fixes them ("Please select at least one
 * photo"); a field's message stays under the field, and the summary names the field and links
 * to it, so no message is on the page twice (docs/decisions/0137-uploads-you-can-watch.md).
 */
function summaryErrors(
  formId: string,
  allErrors: Record<string, string[]>,
  problem: UploadProblem | null | undefined,
  filesId: string | undefined,
): SummaryError[] {
  const listed: SummaryError[] = problem
    ? [{ title: problem.title, message: problem.description, fieldId: filesId }]
    : [];
  for (const [name, messages] of Object.entries(allErrors)) {
    if (messages.length === 0) continue;
    if (name === "") {
      for (const message of messages) listed.push({ message, fieldId: filesId });
      continue;
    }
    const link = /^urls\[(\d+)\]$/.exec(name);
    const field = link ? `Link ${Number(link[1]) + 1}` : (FIELD_NAMES[name] ?? name);
    listed.push({
      message: `${field} needs a change`,
      fieldId: `${formId}-${name === "urls" ? "urls[0]" : name}`,
    });
  }
  return listed;
}
