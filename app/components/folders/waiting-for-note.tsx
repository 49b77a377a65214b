import { pluralize } from "~/utils/format";

/**
 * Before a send (the Email Preview, Send Now's question): the items that stay
 * in the folder because they need a note
 * (docs/decisions/0134-quick-saves-wait-for-a-note.md).
 */
export function WaitingForNote({ items }: { items: { id: number; title: string }[] }) {
  if (items.length === 0) return null;
  return (
    <section
      aria-labelledby="waiting-for-note"
      className="rounded-lg border border-amber-200 bg-amber-50 px-4 py-3 text-sm text-amber-900"
    >
      <h3 id="waiting-for-note" className="font-semibold">
        {`${pluralize(items.length, "item waits", "items wait")} for a note and stay in the folder`}
      </h3>
      <ul className="mt-1 list-disc pl-5">
        {items.map((item) => (
          <li key={item.id} className="wrap-break-word">
            {item.title}
          </li>
        ))}
      </ul>
      <p className="mt-1">Add a comment or a question to an item (Edit) and it goes out too.</p>
    </section>
  );
}
