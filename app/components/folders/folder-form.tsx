import {
  getCollectionProps,
  getFormProps,
  getInputProps,
  getSelectProps,
  getTextareaProps,
  type SubmissionResult,
  useForm,
} from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import { Form, Link } from "@remix-run/react";
import { useEffect, useState } from "react";
import { useHydrated } from "remix-utils/use-hydrated";
import { DraftOnDeviceStatus, useDraftOnDevice } from "~/components/offline/draft-on-device";
import {
  CsrfInput,
  DefaultSubmit,
  ErrorList,
  Field,
  FormAlert,
  OneTimeKeyInput,
  SubmitButton,
  useKeptDraft,
} from "~/components/ui/forms";
import {
  ANSWER_EMAIL_LABELS,
  ANSWER_EMAILS,
  type AnswerEmails,
  type FolderFrequency,
  FolderSchema,
  FREQUENCY_LABELS,
  WEEKDAYS,
} from "~/modules/folders/folder-validation";
import { LIMITS } from "~/modules/plans/limits";
import { getFormConstraint } from "~/platform/form-constraint";
import { ordinal } from "~/utils/ordinal";

export type FolderFormValues = {
  name: string;
  recipients: { name: string; email: string }[];
  frequency: FolderFrequency;
  dayOfWeek: number;
  dayOfMonth: number;
  ccSender: boolean;
  signoffEnabled: boolean;
  personalSignoff: string;
  answerEmails: AnswerEmails;
};

export const NEW_FOLDER_VALUES: FolderFormValues = {
  name: "",
  recipients: [{ name: "", email: "" }],
  frequency: "weekly",
  dayOfWeek: 1,
  dayOfMonth: 1,
  ccSender: false,
  signoffEnabled: false,
  personalSignoff: "",
  answerEmails: "daily",
};

const selectClass =
  "mt-1 block w-full rounded-lg border border-stone-300 bg-white px-3 py-2 text-stone-900";

/**
 * The Folder Details form for create and edit. Adding and removing recipient
 * rows are submit buttons (conform intents): without JavaScript the server
 * re-renders the form with the row added or removed and everything typed kept.
 */
export function FolderForm({
  lastResult,
  defaultValue,
  frequencies,
  cancelTo,
  oneTimeKey,
}: {
  lastResult?: SubmissionResult<string[]> | null;
  defaultValue: FolderFormValues;
  frequencies: readonly FolderFrequency[];
  cancelTo: string;
  /** A new folder's one-time key (app/platform/one-time-keys.server.ts): sent twice, made once. */
  oneTimeKey?: string;
}) {
  const hydrated = useHydrated();
  const keptDraft = useKeptDraft();
  const [form, fields] = useForm({
    id: "folder-details",
    lastResult: lastResult ?? keptDraft,
    defaultValue,
    constraint: getFormConstraint(FolderSchema),
    shouldValidate: "onSubmit",
    shouldRevalidate: "onInput",
    onValidate: ({ formData }) => parseWithZod(formData, { schema: FolderSchema }),
  });
  const onDevice = useDraftOnDevice(form.id, { refillFromDevice: !lastResult && !keptDraft });
  const rows = fields.recipients.getFieldList();
  // "Add recipient" puts the cursor in the new row: with JavaScript once it is rendered,
  // without it through autofocus on the page the server answers the insert with.
  const [focusNewRow, setFocusNewRow] = useState(false);
  const lastRowNameId = rows.at(-1)?.getFieldset().name.id;
  useEffect(() => {
    if (!focusNewRow || !lastRowNameId) return;
    setFocusNewRow(false);
    document.getElementById(lastRowNameId)?.focus();
  }, [focusNewRow, lastRowNameId]);
  const answeredInsert = lastResult?.intent?.type === "insert";
  const frequency = (fields.frequency.value ?? defaultValue.frequency) as FolderFrequency;
  const showWeekday = !hydrated || frequency !== "monthly";
  const showMonthDay = !hydrated || frequency === "monthly";
  const frequencyProps = getSelectProps(fields.frequency);
  const formProps = getFormProps(form);

  return (
    <Form
      method="post"
      {...formProps}
      onSubmit={(event) => {
        if (!onDevice.waitForNetwork(event)) formProps.onSubmit(event);
      }}
      className="stack-y-5"
      preventScrollReset
    >
      <DefaultSubmit />
      <CsrfInput />
      <OneTimeKeyInput value={oneTimeKey} />
      <FormAlert errors={form.errors} />
      <Field
        label="Folder name"
        hint={`Max characters: ${LIMITS.folder.nameMaxLength}`}
        errors={fields.name.errors}
        inputProps={{
          ...getInputProps(fields.name, { type: "text" }),
          maxLength: LIMITS.folder.nameInputMaxLength,
          placeholder: "Family, Book club…",
        }}
      />

      <fieldset className="space-y-3">
        <legend className="text-sm font-medium text-stone-800">Recipients</legend>
        {rows.map((row, index) => {
          const rowFields = row.getFieldset();
          return (
            <div
              // Conform keys rows it added itself; rows from the server have none.
              key={row.key ?? index}
              className="grid gap-2 sm:grid-cols-[1fr_1.4fr_auto] sm:items-start"
            >
              <Field
                label={`Recipient ${index + 1} name`}
                errors={rowFields.name.errors}
                inputProps={{
                  ...getInputProps(rowFields.name, { type: "text" }),
                  maxLength: LIMITS.folder.recipientNameMaxLength,
                  autoComplete: "off",
                  autoFocus: answeredInsert && index === rows.length - 1,
                }}
              />
              <Field
                label={`Recipient ${index + 1} email`}
                errors={rowFields.email.errors}
                inputProps={{
                  ...getInputProps(rowFields.email, { type: "email" }),
                  autoComplete: "off",
                }}
              />
              {rows.length > 1 ? (
                <button
                  {...form.remove.getButtonProps({ name: fields.recipients.name, index })}
                  className="btn-small sm:mt-6"
                  aria-label={`Remove recipient ${index + 1}`}
                >
                  Remove
                </button>
              ) : null}
            </div>
          );
        })}
        <ErrorList errors={fields.recipients.errors} />
        {rows.length < LIMITS.folder.maxRecipients ? (
          <button
            {...form.insert.getButtonProps({
              name: fields.recipients.name,
              defaultValue: { name: "", email: "" },
            })}
            onClick={() => setFocusNewRow(true)}
            className="btn-small"
          >
            Add recipient
          </button>
        ) : (
          // Said where the button was, as the link list says its own limit (item-form.tsx).
          <p className="text-xs text-stone-600">
            Maximum of {LIMITS.folder.maxRecipients} recipients reached
          </p>
        )}
        <p className="text-xs text-stone-600">
          All recipients receive identical emails. If any recipient uses iCloud (icloud.com, me.com
          or mac.com), a 10MB storage limit applies to this folder.
        </p>
      </fieldset>

      <div className="grid gap-4 sm:grid-cols-2">
        <div>
          <label htmlFor={frequencyProps.id} className="block text-sm font-medium text-stone-800">
            Frequency
          </label>
          <select
            {...frequencyProps}
            key={frequencyProps.key}
            className={selectClass}
            onChange={(event) => {
              // Changing the frequency resets the days to 1 (docs/product-rules.md, Folders and items).
              form.update({ name: fields.frequency.name, value: event.currentTarget.value });
              form.update({ name: fields.dayOfWeek.name, value: "1" });
              form.update({ name: fields.dayOfMonth.name, value: "1" });
            }}
          >
            {frequencies.map((option) => (
              <option key={option} value={option}>
                {FREQUENCY_LABELS[option]}
              </option>
            ))}
          </select>
        </div>
        {showWeekday ? (
          <div>
            <label
              htmlFor={fields.dayOfWeek.id}
              className="block text-sm font-medium text-stone-800"
            >
              {hydrated ? "Day of the week" : "Day of the week (weekly deliveries)"}
            </label>
            <select
              {...getSelectProps(fields.dayOfWeek)}
              key={fields.dayOfWeek.key}
              className={selectClass}
            >
              {WEEKDAYS.map((day, index) => (
                <option key={day} value={index + 1}>
                  {day}
                </option>
              ))}
            </select>
          </div>
        ) : null}
        {showMonthDay ? (
          <div>
            <label
              htmlFor={fields.dayOfMonth.id}
              className="block text-sm font-medium text-stone-800"
            >
              {hydrated ? "Day of the month" : "Day of the month (monthly deliveries)"}
            </label>
            <select
              {...getSelectProps(fields.dayOfMonth)}
              key={fields.dayOfMonth.key}
              className={selectClass}
            >
              {Array.from({ length: 31 }, (_, index) => index + 1).map((day) => (
                <option key={day} value={day}>
                  {ordinal(day)}
                </option>
              ))}
            </select>
            <p className="mt-1 text-xs text-stone-600">
              Days 29 to 31 fall back to the last day of a shorter month.
            </p>
          </div>
        ) : null}
      </div>
      <p className="text-xs text-stone-600">Deliveries go out at 00:01 in your time zone.</p>

      <div className="space-y-2">
        <label className="flex min-h-11 items-center gap-2 text-sm text-stone-800">
          <input
            {...getInputProps(fields.signoffEnabled, { type: "checkbox" })}
            key={fields.signoffEnabled.key}
            className="h-4 w-4 rounded-sm border-stone-400"
          />
          Add a personal sign-off
        </label>
        <label htmlFor={fields.personalSignoff.id} className="sr-only">
          Personal sign-off
        </label>
        <textarea
          {...getTextareaProps(fields.personalSignoff)}
          key={fields.personalSignoff.key}
          rows={2}
          placeholder="With love, Mum"
          className="block w-full rounded-lg border border-stone-300 bg-white px-3 py-2 text-stone-900"
        />
        <ErrorList errors={fields.personalSignoff.errors} />
      </div>

      <label className="flex min-h-11 items-center gap-2 text-sm text-stone-800">
        <input
          {...getInputProps(fields.ccSender, { type: "checkbox" })}
          key={fields.ccSender.key}
          className="h-4 w-4 rounded-sm border-stone-400"
        />
        Send me a copy (CC)
      </label>

      <fieldset className="space-y-2">
        <legend className="text-sm font-medium text-stone-800">
          Answers from your recipients by e-mail
        </legend>
        {getCollectionProps(fields.answerEmails, {
          type: "radio",
          options: [...ANSWER_EMAILS],
        }).map(({ key, ...radio }) => (
          <label key={key} className="flex min-h-11 items-center gap-2 text-sm text-stone-800">
            <input {...radio} className="h-4 w-4 border-stone-400" />
            {ANSWER_EMAIL_LABELS[radio.value as AnswerEmails]}
          </label>
        ))}
        <p className="text-xs text-stone-600">
          Hearts and notes always show in Sent. With "Each note at once", hearts still come gathered
          once a day.
        </p>
        <ErrorList errors={fields.answerEmails.errors} />
      </fieldset>

      <DraftOnDeviceStatus state={onDevice.state} uploads={false} onDiscard={onDevice.discard} />
      <div className="flex flex-col-reverse gap-2 sm:flex-row sm:justify-end">
        <Link to={cancelTo} className="btn-secondary" preventScrollReset>
          Cancel
        </Link>
        <SubmitButton pendingText="Saving..." className="btn-primary">
          Save
        </SubmitButton>
      </div>
    </Form>
  );
}
