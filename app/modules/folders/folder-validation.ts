import { LIMITS } from "~/modules/plans/limits";
import { canonicalEmail, mailboxKey } from "~/platform/email-address";
import { formBoolean } from "~/platform/form-boolean";
import { z } from "~/platform/zod";

/**
 * The Folder Details form, shared by the browser and the action. Messages are
 * the product's (docs/product-rules.md, Pages and messages). Rows with a name or an e-mail
 * missing are dropped (docs/product-rules.md, Folders and items); what remains must be valid.
 */
export const FREQUENCIES = ["daily", "weekly", "biweekly", "monthly"] as const;
export type FolderFrequency = (typeof FREQUENCIES)[number];

export const FREQUENCY_LABELS: Record<FolderFrequency, string> = {
  daily: "Daily",
  weekly: "Weekly",
  biweekly: "Every two weeks",
  monthly: "Monthly",
};

/**
 * How recipients' answers reach the sender by e-mail, per folder
 * (docs/decisions/0159-recipients-answer-back.md); hearts are always gathered
 * daily, "each" mails every note at once.
 */
export const ANSWER_EMAILS = ["daily", "each", "none"] as const;
export type AnswerEmails = (typeof ANSWER_EMAILS)[number];

export const ANSWER_EMAIL_LABELS: Record<AnswerEmails, string> = {
  daily: "Once a day, gathered",
  each: "Each note at once",
  none: "Don't e-mail me",
};

export const WEEKDAYS = [
  "Monday",
  "Tuesday",
  "Wednesday",
  "Thursday",
  "Friday",
  "Saturday",
  "Sunday",
] as const;

const RecipientRowSchema = z
  .object({
    name: z
      .string()
      .trim()
      .max(
        LIMITS.folder.recipientNameMaxLength,
        `Max characters: ${LIMITS.folder.recipientNameMaxLength}`,
      )
      .optional(),
    email: z.string().trim().optional(),
  })
  .superRefine((row, context) => {
    if (row.name && row.email && !canonicalEmail(row.email)) {
      context.addIssue({
        code: "custom",
        path: ["email"],
        message: `Please enter a valid email address for ${row.name}`,
      });
    }
  });

/**
 * A server-side refusal of an address the rules above accept: a message for
 * its field, or null. The folder routes pass one for suppressed mailboxes
 * (app/modules/deliverability/suppression-notices.server.ts).
 */
export type AddressRefusal = (email: string, name: string | undefined) => string | null;

/** The Folder Details fields, each checked on its own: the form's object before its checks. */
export const FolderFieldsSchema = z.object({
  // Checked in superRefine below, so every message shows at once: zod skips an
  // object's refinements when one of its fields has already failed.
  name: z.string().trim().default(""),
  recipients: z.array(RecipientRowSchema).max(LIMITS.folder.maxRecipients).default([]),
  frequency: z.enum(FREQUENCIES).default("weekly"),
  // A form sends the days as text, the API as numbers (or text).
  dayOfWeek: z.coerce.number<number | string>().int().min(1).max(7).default(1),
  dayOfMonth: z.coerce.number<number | string>().int().min(1).max(31).default(1),
  ccSender: formBoolean(),
  signoffEnabled: formBoolean(),
  personalSignoff: z.string().trim().max(500, "Max characters: 500").optional(),
  answerEmails: z.enum(ANSWER_EMAILS).default("daily"),
});

/**
 * The form's blank rows are dropped; a JSON body has no blank rows, so there
 * (`incompleteRows: "refused"`) a row missing its name or address is a mistake, refused by name.
 */
export const folderSchema = (
  refuseAddress: AddressRefusal = () => null,
  { incompleteRows }: { incompleteRows: "dropped" | "refused" } = { incompleteRows: "dropped" },
) =>
  FolderFieldsSchema.superRefine((value, context) => {
    if (!value.name) {
      context.addIssue({ code: "custom", path: ["name"], message: "Please enter a folder name" });
    }
    if (incompleteRows === "refused") {
      value.recipients.forEach((row, index) => {
        if (!row.name) {
          context.addIssue({
            code: "custom",
            path: ["recipients", index, "name"],
            message: row.email ? `Please enter a name for ${row.email}` : "Please enter a name",
          });
        }
        if (!row.email) {
          context.addIssue({
            code: "custom",
            path: ["recipients", index, "email"],
            message: row.name
              ? `Please enter an email address for ${row.name}`
              : "Please enter an email address",
          });
        }
      });
    }
    const kept = value.recipients.filter((row) => row.name && row.email);
    if (kept.length === 0) {
      context.addIssue({
        code: "custom",
        path: ["recipients"],
        message: "Please add at least one recipient",
      });
    }
    // One mailbox, one copy: "ann+news@" and "ann@" would send Ann the issue twice.
    const firstRowOfMailbox = new Map<string, string>();
    value.recipients.forEach((row, index) => {
      const mailbox = row.name && row.email ? mailboxKey(row.email) : null;
      if (!mailbox) return;
      const earlier = firstRowOfMailbox.get(mailbox);
      if (earlier === undefined) {
        firstRowOfMailbox.set(mailbox, row.name!);
        return;
      }
      context.addIssue({
        code: "custom",
        path: ["recipients", index, "email"],
        message: `${row.name} has the same email address as ${earlier}`,
      });
    });
    value.recipients.forEach((row, index) => {
      if (!row.name || !row.email || !canonicalEmail(row.email)) return;
      const refusal = refuseAddress(row.email, row.name);
      if (refusal) {
        context.addIssue({
          code: "custom",
          path: ["recipients", index, "email"],
          message: refusal,
        });
      }
    });
    if (value.signoffEnabled && !value.personalSignoff) {
      context.addIssue({
        code: "custom",
        path: ["personalSignoff"],
        message: "Please enter a personal sign-off or uncheck the option",
      });
    }
  }).transform((value) => ({
    name: value.name.slice(0, LIMITS.folder.nameMaxLength),
    recipients: value.recipients
      .filter((row): row is { name: string; email: string } => Boolean(row.name && row.email))
      // Validated above: a kept row's address has a canonical form.
      .map((row) => ({ name: row.name, email: canonicalEmail(row.email) ?? row.email })),
    frequency: value.frequency,
    dayOfWeek: value.dayOfWeek,
    dayOfMonth: value.frequency === "monthly" ? value.dayOfMonth : null,
    ccSender: value.ccSender,
    personalSignoff: value.signoffEnabled ? (value.personalSignoff ?? null) : null,
    answerEmails: value.answerEmails,
  }));

/** The form as the browser checks it: no server-side refusals. */
export const FolderSchema = folderSchema();

/** A folder sent as JSON (the API): every recipient row must be whole. */
export const FolderBodySchema = folderSchema(undefined, { incompleteRows: "refused" });

export type FolderInput = z.output<typeof FolderSchema>;
