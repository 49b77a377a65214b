import { Form } from "@remix-run/react";
import { CsrfInput } from "~/components/ui/forms";
import type { ItemType } from "~/modules/items/item-validation";
import { formatBytes, pluralize } from "~/utils/format";

/** Pieces shared by the steps of "Upload to Multiple Folders" (app/routes/upload+). */

export const WIZARD_TITLE = "Upload to Multiple Folders";

export const TYPE_LABELS: Record<ItemType, string> = {
  link: "Link",
  musing: "Musing",
  photo: "Photo",
  file: "File",
  video: "Video",
};

type Step = "content" | "folders" | "check";

export function WizardSteps({ type, current }: { type: ItemType; current: Step }) {
  const steps: [Step, string][] = [
    ["content", "Content"],
    ["folders", "Folders"],
  ];
  if (type !== "link" && type !== "musing") steps.push(["check", "Check"]);
  return (
    <ol aria-label="Steps" className="mb-4 flex gap-2 text-xs font-medium text-stone-600">
      {steps.map(([step, label], index) => (
        <li
          key={step}
          aria-current={step === current ? "step" : undefined}
          className={`rounded-full px-3 py-1 ${
            step === current ? "bg-brand-700 text-white" : "bg-stone-100"
          }`}
        >
          {index + 1}. {label}
        </li>
      ))}
    </ol>
  );
}

/** One line saying what is being uploaded. */
export function DraftLine({
  draft,
}: {
  draft: { type: ItemType; title: string; files: { name: string; size: number }[] };
}) {
  const bytes = draft.files.reduce((sum, file) => sum + file.size, 0);
  return (
    <p className="mb-4 rounded-lg bg-stone-50 px-3 py-2 text-sm text-stone-800">
      <span className="font-medium">{TYPE_LABELS[draft.type]}:</span> {draft.title}
      {draft.files.length > 0
        ? ` · ${pluralize(draft.files.length, draft.type)} · ${formatBytes(bytes)}`
        : null}
    </p>
  );
}

/** "Cancel": removes the draft (and its files) and closes the wizard. */
export function DiscardDraftForm({ draftId }: { draftId: string }) {
  return (
    <Form method="post" action={`/upload/${draftId}/discard`} className="mt-3 text-right">
      <CsrfInput />
      <button type="submit" className="text-sm text-stone-600 underline hover:text-stone-900">
        Cancel and discard
      </button>
    </Form>
  );
}
