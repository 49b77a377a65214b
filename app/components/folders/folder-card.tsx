import type { ReactNode } from "react";
import { DelegatedLink } from "~/components/layout/delegated-navigation";
import { useDetailsMenu } from "~/components/layout/details-menu";
import type { FolderSummary } from "~/modules/dashboard/dashboard.server";
import { formatBytes, pluralize } from "~/utils/format";

/**
 * The dashboard's folder cards. Their buttons belong to the folder list's one
 * form and each posts to its own folder (`formAction`); their links are
 * delegated, so a card holds no form or hook of its own
 * (docs/decisions/0082-react-only-cards.md).
 */

// 44×44: a thumb's width (docs/decisions/0144-every-control-thumb-sized.md).
const FOLDER_ICON_BUTTON =
  "inline-flex h-11 w-11 items-center justify-center rounded-md text-stone-600 hover:bg-stone-200 hover:text-stone-900 disabled:cursor-not-allowed disabled:opacity-30";

const MENU_ITEM =
  "flex min-h-11 w-full items-center px-3 text-left text-sm text-stone-800 hover:bg-stone-100";

const MENU_SUMMARY =
  "flex h-11 w-11 cursor-pointer list-none items-center justify-center rounded-md text-stone-600 hover:bg-stone-200 [&::-webkit-details-marker]:hidden";

function Icon({ path }: { path: string }) {
  return (
    <svg aria-hidden="true" viewBox="0 0 20 20" className="h-4 w-4" fill="currentColor">
      <path d={path} />
    </svg>
  );
}

const ICON_PATHS = {
  up: "M10 5l5 6H5z",
  down: "M10 15l5-6H5z",
  more: "M2.4 10a1.6 1.6 0 1 0 3.2 0a1.6 1.6 0 1 0-3.2 0M8.4 10a1.6 1.6 0 1 0 3.2 0a1.6 1.6 0 1 0-3.2 0M14.4 10a1.6 1.6 0 1 0 3.2 0a1.6 1.6 0 1 0-3.2 0",
};

/** A button that posts its intent to its folder's URL, so several can share one form. */
export function FolderButton({
  folderId,
  intent,
  label,
  children,
  disabled,
  className = FOLDER_ICON_BUTTON,
}: {
  folderId: number;
  intent: string;
  label: string;
  children: ReactNode;
  disabled?: boolean;
  className?: string;
}) {
  return (
    <button
      type="submit"
      formAction={`/folders/${folderId}`}
      name="intent"
      value={intent}
      aria-label={label}
      title={label}
      disabled={disabled}
      className={className}
    >
      {children}
    </button>
  );
}

function FolderMenu({ folder }: { folder: FolderSummary }) {
  const pauseLabel = folder.isPaused ? "Resume Delivery" : "Pause Delivery";
  const menu = useDetailsMenu();
  return (
    <details ref={menu} className="relative">
      <summary className={MENU_SUMMARY} aria-label={`Actions for ${folder.name}`}>
        <Icon path={ICON_PATHS.more} />
      </summary>
      <div className="absolute right-0 z-30 mt-1 w-48 overflow-hidden rounded-lg border border-stone-200 bg-white py-1 shadow-lg">
        <DelegatedLink to={`/folders/${folder.id}/edit`} className={MENU_ITEM} preventScrollReset>
          <span className="sm:hidden">Edit </span>Settings
        </DelegatedLink>
        <FolderButton
          folderId={folder.id}
          intent="toggle-pause"
          label={pauseLabel}
          className={MENU_ITEM}
          disabled={folder.isUnsubscribed}
        >
          {pauseLabel}
        </FolderButton>
        <DelegatedLink
          to={`/folders/${folder.id}/delete`}
          className={`${MENU_ITEM} text-red-700`}
          preventScrollReset
        >
          Delete Folder
        </DelegatedLink>
      </div>
    </details>
  );
}

/**
 * A folder every recipient left is stuck (its Add buttons greyed, docs/product-rules.md): the card
 * says so and offers the one step that gets it going again
 * (docs/decisions/0249-the-sender-told-when-the-last-recipient-leaves.md).
 */
function EveryoneLeftStep({ folder }: { folder: FolderSummary }) {
  return (
    <div className="mt-2 border-t border-stone-100 pt-2 text-xs text-amber-900">
      <p>{`${folder.everyoneLeft}: nobody gets it now.`}</p>
      <DelegatedLink
        to={`/folders/${folder.id}/edit`}
        aria-label={`Add a recipient to ${folder.name}`}
        className="inline-flex min-h-11 items-center font-medium underline"
        preventScrollReset
      >
        Add a recipient
      </DelegatedLink>
    </div>
  );
}

export type FolderCardPlace = { selected: boolean; first: boolean; last: boolean };

export function FolderCard({ folder, place }: { folder: FolderSummary; place: FolderCardPlace }) {
  const border = place.selected ? "border-brand-600 ring-2 ring-brand-200" : "border-stone-200";
  return (
    <li className={`rounded-xl border bg-white p-3 shadow-xs ${border}`}>
      <div className="flex items-start gap-2">
        <DelegatedLink
          to={`/folders/${folder.id}`}
          aria-current={place.selected ? "page" : undefined}
          className="min-w-0 flex-1"
        >
          <p className="truncate text-xs text-stone-600">{folder.recipientCountLabel}</p>
          <p className="truncate font-semibold text-stone-900">{folder.name}</p>
          <p className="mt-1 text-xs text-stone-600">
            {`${folder.frequencyLabel} · ${pluralize(folder.itemCount, "item")} · ${formatBytes(folder.totalSize)}`}
          </p>
          <p className="text-xs text-stone-600">{`Next: ${folder.nextLabel}`}</p>
          {folder.sendStatus ? (
            <p
              className={`text-xs ${folder.sendStatus.state === "failed" ? "text-red-800" : "text-amber-900"}`}
            >
              {folder.sendStatus.line}
            </p>
          ) : null}
        </DelegatedLink>
        <div className="flex flex-col items-center gap-2">
          <FolderButton
            folderId={folder.id}
            intent="move-up"
            label={`Move ${folder.name} up`}
            disabled={place.first}
          >
            <Icon path={ICON_PATHS.up} />
          </FolderButton>
          <FolderButton
            folderId={folder.id}
            intent="move-down"
            label={`Move ${folder.name} down`}
            disabled={place.last}
          >
            <Icon path={ICON_PATHS.down} />
          </FolderButton>
        </div>
        <FolderMenu folder={folder} />
      </div>
      {folder.everyoneLeft ? <EveryoneLeftStep folder={folder} /> : null}
    </li>
  );
}

/** The sender's folders in their order, the selected one marked as the current page. */
export function FolderCards({
  folders,
  selectedId,
}: {
  folders: FolderSummary[];
  selectedId?: number;
}) {
  return (
    <>
      {folders.map((folder, index) => (
        <FolderCard
          key={folder.id}
          folder={folder}
          place={{
            selected: folder.id === selectedId,
            first: index === 0,
            last: index === folders.length - 1,
          }}
        />
      ))}
    </>
  );
}
