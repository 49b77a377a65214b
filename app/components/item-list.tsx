import { Form, useLocation } from "@remix-run/react";
import { DelegatedLink } from "~/components/delegated-link";
import { CsrfInput } from "~/components/forms";
import { itemCardHtml } from "~/components/item-card";
import type { DashboardData, ItemView } from "~/modules/folders/dashboard.server";

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
              <li
                key={item.id}
                id={`item-${item.id}`}
                className="item-card"
                // biome-ignore lint/security/noDangerouslySetInnerHtml: built by `html`, which escapes every value (app/utils/html.ts)
                dangerouslySetInnerHTML={{
                  __html: itemCardHtml(item, {
                    folderId,
                    isFirst: position === 0,
                    isLast: position === pagination.total - 1,
                  }).value,
                }}
              />
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
