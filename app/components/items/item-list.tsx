import { useLocation } from "@remix-run/react";
import { useEffect } from "react";
import { ItemCards } from "~/components/items/item-card";
import { DelegatedForm, DelegatedLink } from "~/components/layout/delegated-navigation";
import { CsrfInput } from "~/components/ui/forms";
import type { DashboardData, ItemView } from "~/modules/dashboard/dashboard.server";

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
  // A save that lands here by Remix's navigation sets the address with history.pushState, which
  // leaves `:target` alone: the card the address names is marked for the same highlight
  // (docs/decisions/0138-a-save-lands-on-its-item.md).
  useEffect(() => {
    if (!location.hash.startsWith("#item-")) return;
    const landed = document.getElementById(location.hash.slice(1));
    landed?.setAttribute("data-landed", "");
    return () => landed?.removeAttribute("data-landed");
  }, [location.hash]);
  if (!pagination || pagination.total === 0) {
    return (
      <div className="rounded-2xl border border-dashed border-stone-300 bg-white/60 p-8 text-center text-sm text-stone-600">
        This folder is empty. Saved links, musings, photos and files appear here.
      </div>
    );
  }
  return (
    <section aria-label="Saved items" className="space-y-3">
      <DelegatedForm
        action={`/folders/${folderId}/item-actions`}
        preventScrollReset
        className="contents"
      >
        <CsrfInput />
        <input type="hidden" name="returnTo" value={returnTo} />
        <ol className="space-y-3">
          <ItemCards
            items={items}
            page={{
              folderId,
              offset: (pagination.page - 1) * pagination.limit,
              total: pagination.total,
            }}
          />
        </ol>
      </DelegatedForm>
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
