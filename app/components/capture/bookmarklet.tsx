import { useId } from "react";
import { bookmarkletCode } from "~/modules/items/capture";

/**
 * "Save to Thoughtfully" as a bookmark: drag the button to the bookmarks bar
 * (desktop), or copy the code into a new bookmark (phones). Clicking it here
 * does nothing: it is meant for other sites, and our CSP blocks it on ours.
 */
export function Bookmarklet({ appUrl }: { appUrl: string }) {
  const codeId = useId();
  const code = bookmarkletCode(appUrl);
  return (
    <div className="space-y-3">
      <p className="text-sm text-stone-700">
        Drag this button to your bookmarks bar. On any page, click it to save that page (and any
        text you selected, as the note) to a folder.
      </p>
      <p>
        <a
          href={code}
          className="inline-flex min-h-11 cursor-move items-center gap-2 rounded-full border border-brand-700 bg-brand-50 px-4 py-2 text-sm font-semibold text-brand-900 no-underline!"
          onClick={(event) => event.preventDefault()}
          title="Drag me to your bookmarks bar"
        >
          Save to Thoughtfully
        </a>
      </p>
      <div>
        <label htmlFor={codeId} className="block text-sm font-medium text-stone-800">
          On a phone: create a bookmark and paste this as its address
        </label>
        <textarea
          id={codeId}
          readOnly
          rows={3}
          value={code}
          className="mt-1 block w-full rounded-lg border border-stone-300 bg-stone-50 px-3 py-2 font-mono text-xs text-stone-800"
        />
      </div>
    </div>
  );
}
