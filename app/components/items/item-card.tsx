import { ItemContent } from "~/components/items/item-content";
import { DelegatedLink } from "~/components/layout/delegated-navigation";
import type { ItemView } from "~/modules/dashboard/dashboard.server";
import { NEEDS_NOTE, NEEDS_NOTE_HINT } from "~/modules/items/needs-note";

/**
 * One saved item's card on the dashboard: its content and its controls. Its
 * buttons belong to the item list's one form (the value names the action, the
 * address the item) and its Edit link is a delegated link, so a card holds no
 * form or hook of its own (docs/decisions/0082-react-only-cards.md).
 */

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
function LinkCard({
  item,
  preview,
  url,
  action,
}: {
  item: ItemView;
  preview: NonNullable<ItemView["preview"]>;
  url: string;
  action: string;
}) {
  return (
    <figure
      className="link-card overflow-hidden rounded-xl border border-stone-200 bg-stone-50"
      aria-label={`Preview of ${item.title}`}
    >
      {preview.imageKey ? (
        <a href={url} target="_blank" rel="noopener noreferrer nofollow">
          <img
            src={`/files/${preview.imageKey}`}
            alt={preview.title ?? item.title}
            loading="lazy"
            className="max-h-48 w-full object-cover"
          />
        </a>
      ) : null}
      <figcaption className="space-y-1 p-3 text-sm">
        {preview.siteName ? (
          <p className="text-xs uppercase tracking-wide text-stone-500">{preview.siteName}</p>
        ) : null}
        {preview.title ? <p className="font-medium text-stone-900">{preview.title}</p> : null}
        {preview.description ? <p className="text-stone-700">{preview.description}</p> : null}
        <div className="flex flex-wrap gap-2 pt-1">
          {preview.imageKey ? (
            <button
              type="submit"
              name="intent"
              value="remove-preview-image"
              formAction={action}
              aria-label={`Remove the preview picture of ${item.title}`}
              className="item-action"
            >
              Remove picture
            </button>
          ) : null}
          <button
            type="submit"
            name="intent"
            value="remove-preview"
            formAction={action}
            aria-label={`Remove the preview of ${item.title}`}
            className="item-action"
          >
            Remove preview
          </button>
        </div>
      </figcaption>
    </figure>
  );
}

/**
 * Thumb-sized controls in a row, Delete at the far end, away from Up and
 * Down. Edit keeps the scroll position (app/components/layout/delegated-navigation.tsx).
 */
function ItemControls({
  item,
  place,
  action,
}: {
  item: ItemView;
  place: ItemCardPlace;
  action: string;
}) {
  return (
    <div className="flex items-center gap-2 border-t border-stone-100 pt-2">
      <DelegatedLink
        to={`/folders/${place.folderId}/items/${item.id}/edit`}
        className="item-action"
        aria-label={`Edit ${item.title}`}
        preventScrollReset
      >
        Edit
      </DelegatedLink>
      <button
        type="submit"
        name="intent"
        value="move-up"
        formAction={action}
        aria-label={`Move ${item.title} up`}
        disabled={place.isFirst}
        className="item-action"
      >
        Up
      </button>
      <button
        type="submit"
        name="intent"
        value="move-down"
        formAction={action}
        aria-label={`Move ${item.title} down`}
        disabled={place.isLast}
        className="item-action"
      >
        Down
      </button>
      <button
        type="submit"
        name="intent"
        value="delete"
        formAction={action}
        aria-label={`Delete ${item.title}`}
        className="item-action ml-auto text-red-700"
      >
        Delete
      </button>
    </div>
  );
}

/** The card in its list element; `id="item-N"` is the anchor a moved item scrolls back to. */
export function ItemCard({ item, place }: { item: ItemView; place: ItemCardPlace }) {
  const action = itemActionPath(place.folderId, item.id);
  const firstUrl = item.urls?.[0];
  return (
    <li id={`item-${item.id}`} className="item-card">
      {item.fileMissing ? (
        <p className="mb-2 text-sm text-red-800">
          <strong className="mr-2 inline-block rounded-full bg-red-100 px-2 py-0.5 font-semibold">
            Stays in the folder
          </strong>
          {item.fileMissing}
        </p>
      ) : null}
      {item.needsNote ? (
        <p className="mb-2 text-sm text-amber-900">
          <strong className="mr-2 inline-block rounded-full bg-amber-100 px-2 py-0.5 font-semibold">
            {NEEDS_NOTE}
          </strong>
          {NEEDS_NOTE_HINT}
        </p>
      ) : null}
      <ItemContent
        item={item}
        preview={
          item.preview && firstUrl ? (
            <LinkCard item={item} preview={item.preview} url={firstUrl} action={action} />
          ) : null
        }
      />
      <ItemControls item={item} place={place} action={action} />
    </li>
  );
}

/** One page of cards, starting at `offset` among the folder's `total` items. */
export function ItemCards({
  items,
  page,
}: {
  items: ItemView[];
  page: { folderId: number; offset: number; total: number };
}) {
  return (
    <>
      {items.map((item, index) => {
        const position = page.offset + index;
        return (
          <ItemCard
            key={item.id}
            item={item}
            place={{
              folderId: page.folderId,
              isFirst: position === 0,
              isLast: position === page.total - 1,
            }}
          />
        );
      })}
    </>
  );
}
