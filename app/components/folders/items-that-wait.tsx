import type { WaitingFor } from "~/modules/items/needs-note";
import { pluralize } from "~/utils/format";

const WHY: Record<WaitingFor, string> = {
  note: "needs a comment or a question",
  video: "its video is not ready yet",
  file: "a file is missing",
};

const WHAT_TO_DO: Record<WaitingFor, string> = {
  note: "Add a comment or a question to an item (Edit) and it goes out too.",
  video: "A video goes out with the first send after it is ready.",
  file: "An item whose file is missing goes once you add the file again, or remove it.",
};

/**
 * Before a send (the Email Preview, Send Now's question): the items that stay
 * in the folder and what each waits for, so the count asked about is the count
 * that goes (docs/decisions/0134-quick-saves-wait-for-a-note.md,
 * 0252-what-waits-is-named-before-a-send.md).
 */
export function ItemsThatWait({
  items,
}: {
  items: { id: number; title: string; waitingFor: WaitingFor }[];
}) {
  if (items.length === 0) return null;
  const reasons = [...new Set(items.map((item) => item.waitingFor))];
  const onlyNotes = reasons.length === 1 && reasons[0] === "note";
  const waits = pluralize(items.length, "item waits", "items wait");
  const stays = items.length === 1 ? "stays" : "stay";
  return (
    <section
      aria-labelledby="items-that-wait"
      className="rounded-lg border border-amber-200 bg-amber-50 px-4 py-3 text-sm text-amber-900"
    >
      <h3 id="items-that-wait" className="font-semibold">
        {onlyNotes
          ? `${waits} for a note and ${stays} in the folder`
          : `${waits} and ${stays} in the folder`}
      </h3>
      <ul className="mt-1 list-disc pl-5">
        {items.map((item) => (
          <li key={item.id} className="wrap-break-word">
            {onlyNotes ? item.title : `${item.title}: ${WHY[item.waitingFor]}`}
          </li>
        ))}
      </ul>
      {reasons.map((reason) => (
        <p key={reason} className="mt-1">
          {WHAT_TO_DO[reason]}
        </p>
      ))}
    </section>
  );
}
