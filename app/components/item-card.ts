import { delegatedLinkHtml } from "~/components/delegated-navigation";
import type { ItemView } from "~/modules/folders/dashboard.server";
import { formatBytes } from "~/utils/format";
import { html, type SafeHtml } from "~/utils/html";

/**
 * The inside of one saved item's card on the dashboard, as HTML: its content
 * and its controls. The list has 50 of them a page, and as React elements
 * they were the largest part of the dashboard's time
 * (docs/decisions/0079-item-cards-as-html.md). The server and the browser both draw the card from this one
 * function (`<ItemList>` sets the list's inner HTML), so there is
 * nothing to keep in step. Nothing in a card needs React: its buttons belong
 * to the list's one form and its Edit link is a delegated link.
 */

const EXPECTATION_LABELS = {
  expecting: "Hoping for a reply",
  not_expecting: "No reply needed",
} as const;

export type ItemCardPlace = {
  folderId: number;
  /** The first item of the folder cannot move up, the last cannot move down. */
  isFirst: boolean;
  isLast: boolean;
};

/** Where the card's buttons post: the item is in the address, the action in `intent`. */
function itemActionPath(folderId: number, itemId: number) {
  return `/folders/${folderId}/item-actions?itemId=${itemId}`;
}

/** A link's preview card, once fetched (app/modules/items/link-previews.server.ts). */
function linkCard(
  item: ItemView,
  preview: NonNullable<ItemView["preview"]>,
  url: string,
  action: string,
) {
  const picture = preview.imageKey
    ? html`<a href="${url}" target="_blank" rel="noopener noreferrer nofollow"><img src="/files/${preview.imageKey}" alt="${preview.title ?? item.title}" loading="lazy" class="max-h-48 w-full object-cover"/></a>`
    : null;
  const removePicture = preview.imageKey
    ? html`<button type="submit" name="intent" value="remove-preview-image" formaction="${action}" aria-label="Remove the preview picture of ${item.title}" class="item-action">Remove picture</button>`
    : null;
  return html`<figure class="link-card overflow-hidden rounded-xl border border-stone-200 bg-stone-50" aria-label="Preview of ${item.title}">${picture}<figcaption class="space-y-1 p-3 text-sm">${
    preview.siteName &&
    html`<p class="text-xs uppercase tracking-wide text-stone-500">${preview.siteName}</p>`
  }${preview.title && html`<p class="font-medium text-stone-900">${preview.title}</p>`}${
    preview.description && html`<p class="text-stone-700">${preview.description}</p>`
  }<div class="flex flex-wrap gap-2 pt-1">${removePicture}<button type="submit" name="intent" value="remove-preview" formaction="${action}" aria-label="Remove the preview of ${item.title}" class="item-action">Remove preview</button></div></figcaption></figure>`;
}

function itemBody(item: ItemView, action: string) {
  const firstUrl = item.urls?.[0];
  const files = item.files ?? [];
  return html`<div class="min-w-0 flex-1 space-y-2"><p class="item-type">${item.type}</p><h3 class="item-title">${item.title}</h3>${
    item.preview && firstUrl && linkCard(item, item.preview, firstUrl, action)
  }${
    item.urls &&
    html`<ul class="item-urls space-y-0.5 text-sm">${item.urls.map(
      (url) =>
        html`<li><a href="${url}" target="_blank" rel="noopener noreferrer nofollow">${url}</a></li>`,
    )}</ul>`
  }${item.note && html`<p class="whitespace-pre-line text-sm text-stone-700">${item.note}</p>`}${
    item.type === "photo" &&
    files.length > 0 &&
    html`<ul class="flex flex-wrap gap-2">${files.map(
      (file) =>
        html`<li><a href="/files/${file.key}" target="_blank" rel="noreferrer"><img src="/files/${file.thumbnailKey ?? file.key}" alt="${file.name}" loading="lazy" class="h-24 w-24 rounded-lg border border-stone-200 object-cover"/></a></li>`,
    )}</ul>`
  }${
    item.type === "file" &&
    files.length > 0 &&
    html`<ul class="space-y-0.5 text-sm">${files.map(
      (file) =>
        html`<li><a href="/files/${file.key}" class="item-url">${file.name}</a> <span class="text-stone-500">(${formatBytes(file.size)})</span></li>`,
    )}</ul>`
  }${
    item.commentText &&
    html`<p class="text-sm text-stone-700"><span class="font-medium">Comment:</span> ${item.commentText}</p>`
  }${
    item.questionText &&
    html`<p class="text-sm text-stone-700"><span class="font-medium">Question:</span> ${item.questionText}</p>`
  }${
    item.responseExpectation &&
    html`<p class="text-xs text-stone-600">${EXPECTATION_LABELS[item.responseExpectation]}</p>`
  }</div>`;
}

/**
 * Thumb-sized controls in a row, Delete at the far end, away from Up and
 * Down. The buttons belong to the list's one form: the value names the
 * action, the address the item. Edit is a delegated link that keeps the
 * scroll position (app/components/delegated-navigation.tsx).
 */
function itemControls(item: ItemView, place: ItemCardPlace, action: string) {
  const edit = delegatedLinkHtml(
    {
      to: `/folders/${place.folderId}/items/${item.id}/edit`,
      className: "item-action",
      "aria-label": `Edit ${item.title}`,
      preventScrollReset: true,
    },
    html`Edit`,
  );
  return html`<div class="flex items-center gap-2 border-t border-stone-100 pt-2">${edit}<button type="submit" name="intent" value="move-up" formaction="${action}" aria-label="Move ${item.title} up"${
    place.isFirst && html` disabled=""`
  } class="item-action">Up</button><button type="submit" name="intent" value="move-down" formaction="${action}" aria-label="Move ${item.title} down"${
    place.isLast && html` disabled=""`
  } class="item-action">Down</button><button type="submit" name="intent" value="delete" formaction="${action}" aria-label="Delete ${item.title}" class="item-action ml-auto text-red-700">Delete</button></div>`;
}

export function itemCardHtml(item: ItemView, place: ItemCardPlace): SafeHtml {
  const action = itemActionPath(place.folderId, item.id);
  return html`${itemBody(item, action)}${itemControls(item, place, action)}`;
}

/**
 * One page of cards, each in its `<li>` (`id="item-N"`, the anchor a moved
 * item scrolls back to). The page starts at `offset` among the folder's
 * `total` items. One string for the list, not one React element per card:
 * React's own work for 50 list items was still measurable
 * (docs/decisions/0079-item-cards-as-html.md).
 */
export function itemListHtml(
  items: ItemView[],
  page: { folderId: number; offset: number; total: number },
): SafeHtml {
  return html`${items.map((item, index) => {
    const position = page.offset + index;
    const place = {
      folderId: page.folderId,
      isFirst: position === 0,
      isLast: position === page.total - 1,
    };
    return html`<li id="item-${item.id}" class="item-card">${itemCardHtml(item, place)}</li>`;
  })}`;
}
