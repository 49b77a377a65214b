import { delegatedLinkHtml } from "~/components/delegated-navigation";
import type { FolderSummary } from "~/modules/folders/dashboard.server";
import { formatBytes, pluralize } from "~/utils/format";
import { html, type SafeHtml } from "~/utils/html";

/**
 * The dashboard's folder cards, as HTML, for the reason the item cards are
 * (docs/decisions/0079-item-cards-as-html.md): the five cards were half of what React
 * still drew on the page. `<FolderList>` sets
 * this as its list's inner HTML, on the server and in the browser alike.
 * Nothing in a card needs React: its buttons belong to the list's one form
 * and post to their own folder (`formaction`), its links are delegated.
 */

const FOLDER_ICON_BUTTON =
  "rounded-md p-1.5 text-stone-600 hover:bg-stone-200 hover:text-stone-900 disabled:cursor-not-allowed disabled:opacity-30";

const MENU_ITEM =
  "flex min-h-11 w-full items-center px-3 text-left text-sm text-stone-800 hover:bg-stone-100";

const MENU_SUMMARY =
  "cursor-pointer list-none rounded-md p-1.5 text-stone-600 hover:bg-stone-200 [&::-webkit-details-marker]:hidden";

const ICONS = {
  up: html`<svg aria-hidden="true" viewBox="0 0 20 20" class="h-4 w-4" fill="currentColor"><path d="M10 5l5 6H5z"></path></svg>`,
  down: html`<svg aria-hidden="true" viewBox="0 0 20 20" class="h-4 w-4" fill="currentColor"><path d="M10 15l5-6H5z"></path></svg>`,
  more: html`<svg aria-hidden="true" viewBox="0 0 20 20" class="h-4 w-4" fill="currentColor"><path d="M2.4 10a1.6 1.6 0 1 0 3.2 0a1.6 1.6 0 1 0-3.2 0M8.4 10a1.6 1.6 0 1 0 3.2 0a1.6 1.6 0 1 0-3.2 0M14.4 10a1.6 1.6 0 1 0 3.2 0a1.6 1.6 0 1 0-3.2 0"></path></svg>`,
};

type FolderButtonProps = {
  folderId: number;
  intent: string;
  label: string;
  disabled?: boolean;
  className?: string;
};

/**
 * A button that posts its intent to its folder's URL, so the folder list's
 * buttons can share one form; the same markup as `<FolderButton>` in
 * dashboard.tsx (held to it by folder-card.test.tsx).
 */
export function folderButtonHtml(props: FolderButtonProps, content: SafeHtml) {
  return html`<button type="submit" formaction="/folders/${props.folderId}" name="intent" value="${props.intent}" aria-label="${props.label}" title="${props.label}"${
    props.disabled && html` disabled=""`
  } class="${props.className ?? FOLDER_ICON_BUTTON}">${content}</button>`;
}

function folderMenuHtml(folder: FolderSummary) {
  const pauseLabel = folder.isPaused ? "Resume Delivery" : "Pause Delivery";
  const settings = delegatedLinkHtml(
    { to: `/folders/${folder.id}/edit`, className: MENU_ITEM, preventScrollReset: true },
    html`<span class="sm:hidden">Edit </span>Settings`,
  );
  const pause = folderButtonHtml(
    {
      folderId: folder.id,
      intent: "toggle-pause",
      label: pauseLabel,
      className: MENU_ITEM,
      disabled: folder.isUnsubscribed,
    },
    html`${pauseLabel}`,
  );
  const remove = delegatedLinkHtml(
    {
      to: `/folders/${folder.id}/delete`,
      className: `${MENU_ITEM} text-red-700`,
      preventScrollReset: true,
    },
    html`Delete Folder`,
  );
  return html`<details class="relative"><summary class="${MENU_SUMMARY}" aria-label="Actions for ${folder.name}">${ICONS.more}</summary><div class="absolute right-0 z-30 mt-1 w-48 overflow-hidden rounded-lg border border-stone-200 bg-white py-1 shadow-lg">${settings}${pause}${remove}</div></details>`;
}

type FolderCardPlace = { selected: boolean; first: boolean; last: boolean };

function folderCardHtml(folder: FolderSummary, place: FolderCardPlace) {
  const open = delegatedLinkHtml(
    {
      to: `/folders/${folder.id}`,
      "aria-current": place.selected ? "page" : undefined,
      className: "min-w-0 flex-1",
    },
    html`<p class="truncate text-xs text-stone-600">${folder.recipientLabel}</p><p class="truncate font-semibold text-stone-900">${folder.name}</p><p class="mt-1 text-xs text-stone-600">${folder.frequencyLabel} · ${pluralize(folder.itemCount, "item")} · ${formatBytes(folder.totalSize)}</p><p class="text-xs text-stone-600">Next: ${folder.nextLabel}</p>`,
  );
  const moveUp = folderButtonHtml(
    {
      folderId: folder.id,
      intent: "move-up",
      label: `Move ${folder.name} up`,
      disabled: place.first,
    },
    ICONS.up,
  );
  const moveDown = folderButtonHtml(
    {
      folderId: folder.id,
      intent: "move-down",
      label: `Move ${folder.name} down`,
      disabled: place.last,
    },
    ICONS.down,
  );
  const border = place.selected ? "border-brand-600 ring-2 ring-brand-200" : "border-stone-200";
  return html`<li class="rounded-xl border bg-white p-3 shadow-sm ${border}"><div class="flex items-start gap-2">${open}<div class="flex flex-col items-center">${moveUp}${moveDown}</div>${folderMenuHtml(folder)}</div></li>`;
}

/** The sender's folders in their order, the selected one marked as the current page. */
export function folderListHtml(folders: FolderSummary[], selectedId?: number): SafeHtml {
  return html`${folders.map((folder, index) =>
    folderCardHtml(folder, {
      selected: folder.id === selectedId,
      first: index === 0,
      last: index === folders.length - 1,
    }),
  )}`;
}
