import { Form, useLocation } from "@remix-run/react";
import { DelegatedLink } from "~/components/delegated-link";
import { CsrfInput } from "~/components/forms";
import type { DashboardData, ItemView } from "~/modules/folders/dashboard.server";
import { formatBytes } from "~/utils/format";

const EXPECTATION_LABELS = {
  expecting: "Hoping for a reply",
  not_expecting: "No reply needed",
} as const;

/** Where the list's buttons post: the item is in the address, the action in `intent`. */
function itemActionPath(folderId: number, itemId: number) {
  return `/folders/${folderId}/item-actions?itemId=${itemId}`;
}

/**
 * A link's preview card, once fetched (app/modules/items/link-previews.server.ts).
 * Its buttons belong to the list's one form, so removing works without
 * JavaScript.
 */
function LinkCard({
  item,
  preview,
  url,
  folderId,
}: {
  folderId: number;
  item: ItemView;
  preview: NonNullable<ItemView["preview"]>;
  url: string;
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
              formAction={itemActionPath(folderId, item.id)}
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
            formAction={itemActionPath(folderId, item.id)}
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

function ItemBody({ item, folderId }: { item: ItemView; folderId: number }) {
  return (
    <div className="min-w-0 flex-1 space-y-2">
      <p className="item-type">{item.type}</p>
      <h3 className="item-title">{item.title}</h3>
      {item.preview && item.urls?.[0] ? (
        <LinkCard item={item} preview={item.preview} url={item.urls[0]} folderId={folderId} />
      ) : null}
      {item.urls ? (
        <ul className="item-urls space-y-0.5 text-sm">
          {item.urls.map((url) => (
            <li key={url}>
              <a href={url} target="_blank" rel="noopener noreferrer nofollow">
                {url}
              </a>
            </li>
          ))}
        </ul>
      ) : null}
      {item.note ? <p className="whitespace-pre-line text-sm text-stone-700">{item.note}</p> : null}
      {item.type === "photo" && item.files ? (
        <ul className="flex flex-wrap gap-2">
          {item.files.map((file) => (
            <li key={file.key}>
              <a href={`/files/${file.key}`} target="_blank" rel="noreferrer">
                <img
                  src={`/files/${file.thumbnailKey ?? file.key}`}
                  alt={file.name}
                  loading="lazy"
                  className="h-24 w-24 rounded-lg border border-stone-200 object-cover"
                />
              </a>
            </li>
          ))}
        </ul>
      ) : null}
      {item.type === "file" && item.files ? (
        <ul className="space-y-0.5 text-sm">
          {item.files.map((file) => (
            <li key={file.key}>
              <a href={`/files/${file.key}`} className="item-url">
                {file.name}
              </a>{" "}
              <span className="text-stone-500">({formatBytes(file.size)})</span>
            </li>
          ))}
        </ul>
      ) : null}
      {item.commentText ? (
        <p className="text-sm text-stone-700">
          <span className="font-medium">Comment:</span>
          {` ${item.commentText}`}
        </p>
      ) : null}
      {item.questionText ? (
        <p className="text-sm text-stone-700">
          <span className="font-medium">Question:</span>
          {` ${item.questionText}`}
        </p>
      ) : null}
      {item.responseExpectation ? (
        <p className="text-xs text-stone-600">{EXPECTATION_LABELS[item.responseExpectation]}</p>
      ) : null}
    </div>
  );
}

export function ItemList({
  folderId,
  items,
  pagination,
}: {
  folderId: number;
  items: ItemView[];
  pagination: DashboardData["pagination"];
}) {
  const location = useLocation();
  const returnTo = `${location.pathname}${location.search}`;
  if (!pagination || pagination.total === 0) {
    return (
      <div className="rounded-2xl border border-dashed border-stone-300 bg-white/60 p-8 text-center text-sm text-stone-600">
        This folder is empty. Saved links, musings, photos and files appear here.
      </div>
    );
  }
  const offset = (pagination.page - 1) * pagination.limit;
  return (
    <section aria-label="Saved items" className="space-y-3">
      <Form
        method="post"
        action={`/folders/${folderId}/item-actions`}
        preventScrollReset
        className="contents"
      >
        <CsrfInput />
        <input type="hidden" name="returnTo" value={returnTo} />
        <ol className="space-y-3">
          {items.map((item, index) => {
            const position = offset + index;
            return (
              <li key={item.id} id={`item-${item.id}`} className="item-card">
                <ItemBody item={item} folderId={folderId} />
                {/* Thumb-sized controls in a row; Delete at the far end, away from Up and Down. */}
                <div className="flex items-center gap-2 border-t border-stone-100 pt-2">
                  <DelegatedLink
                    to={`/folders/${folderId}/items/${item.id}/edit`}
                    className="item-action"
                    aria-label={`Edit ${item.title}`}
                    preventScrollReset
                  >
                    Edit
                  </DelegatedLink>
                  {/* Buttons of the list's one form: the value names the action, the address the item. */}
                  <button
                    type="submit"
                    name="intent"
                    value="move-up"
                    formAction={itemActionPath(folderId, item.id)}
                    aria-label={`Move ${item.title} up`}
                    disabled={position === 0}
                    className="item-action"
                  >
                    Up
                  </button>
                  <button
                    type="submit"
                    name="intent"
                    value="move-down"
                    formAction={itemActionPath(folderId, item.id)}
                    aria-label={`Move ${item.title} down`}
                    disabled={position === pagination.total - 1}
                    className="item-action"
                  >
                    Down
                  </button>
                  <button
                    type="submit"
                    name="intent"
                    value="delete"
                    formAction={itemActionPath(folderId, item.id)}
                    aria-label={`Delete ${item.title}`}
                    className="item-action ml-auto text-red-700"
                  >
                    Delete
                  </button>
                </div>
              </li>
            );
          })}
        </ol>
      </Form>
      {pagination.totalPages > 1 ? (
        <nav aria-label="Pages" className="flex items-center justify-between text-sm">
          {pagination.hasPrevious ? (
            <DelegatedLink
              to={`/folders/${folderId}?page=${pagination.page - 1}`}
              className="btn-secondary"
            >
              Previous
            </DelegatedLink>
          ) : (
            <span />
          )}
          <span className="text-stone-600">
            Page {pagination.page} of {pagination.totalPages}
          </span>
          {pagination.hasMore ? (
            <DelegatedLink
              to={`/folders/${folderId}?page=${pagination.page + 1}`}
              className="btn-secondary"
            >
              Next
            </DelegatedLink>
          ) : (
            <span />
          )}
        </nav>
      ) : null}
    </section>
  );
}
