import { useLocation, useRouteLoaderData } from "@remix-run/react";
import type { ReactNode } from "react";
import { FolderButton, FolderCards } from "~/components/folders/folder-card";
import { InboxAddressLine } from "~/components/folders/inbox-address-line";
import { ItemList } from "~/components/items/item-list";
import { useRefreshWhilePreviewsPending } from "~/components/items/pending-previews";
import { AppShell } from "~/components/layout/app-shell";
import { DelegatedForm, DelegatedLink } from "~/components/layout/delegated-navigation";
import { useDetailsMenu } from "~/components/layout/details-menu";
import { PendingSavesList } from "~/components/offline/pending-saves";
import { CsrfInput } from "~/components/ui/forms";
import type { DashboardData, FolderSummary } from "~/modules/dashboard/dashboard.server";
import { perksInOneLine } from "~/modules/plans/premium-perks";
import { sendNowBlocker } from "~/modules/sending/send-now";
import type { SendStatus } from "~/modules/sending/send-status.server";
import type { loader as rootLoader } from "~/root";
import { formatBytes, pluralize } from "~/utils/format";

type Data = DashboardData & { bannerDismissed: boolean };
type Folder = FolderSummary;

function Bar({ ratio, label }: { ratio: number; label: string }) {
  const color = ratio > 1 ? "bg-red-600" : ratio > 0.8 ? "bg-amber-500" : "bg-brand-600";
  return (
    <div
      role="progressbar"
      aria-label={label}
      aria-valuemin={0}
      aria-valuemax={100}
      aria-valuenow={Math.round(Math.min(ratio, 1) * 100)}
      className="mt-1 h-2 w-full overflow-hidden rounded-full bg-stone-200"
    >
      <div className={`h-full ${color}`} style={{ width: `${Math.min(ratio, 1) * 100}%` }} />
    </div>
  );
}

/** A FolderButton in a POST form of its own; `returnTo` brings the user back to this page. */
function ActionButton(props: Parameters<typeof FolderButton>[0]) {
  const location = useLocation();
  return (
    <DelegatedForm action={`/folders/${props.folderId}`} preventScrollReset>
      <CsrfInput />
      <input type="hidden" name="returnTo" value={`${location.pathname}${location.search}`} />
      <FolderButton {...props} />
    </DelegatedForm>
  );
}

/** The folder cards, in one form whose buttons each post to their own folder. */
function FolderList({ folders, selectedId }: { folders: Folder[]; selectedId?: number }) {
  const location = useLocation();
  return (
    <DelegatedForm preventScrollReset className="contents">
      <CsrfInput />
      <input type="hidden" name="returnTo" value={`${location.pathname}${location.search}`} />
      <ul className="space-y-2">
        <FolderCards folders={folders} selectedId={selectedId} />
      </ul>
    </DelegatedForm>
  );
}

/** Counts for everyone; a bar only under a limit (none for Premium: docs/decisions/0152-premium-shown-as-it-is.md). */
function UsageBox({ usage }: { usage: Data["usage"] }) {
  return (
    <section
      aria-label="Usage"
      className="rounded-xl border border-stone-200 bg-white p-3 text-xs text-stone-700"
    >
      {usage.maxFolders !== null ? (
        <div>
          <p>
            Folders: {usage.folderCount} of {usage.maxFolders}
          </p>
          <Bar ratio={usage.folderCount / usage.maxFolders} label="Folders used" />
        </div>
      ) : (
        <p>Folders: {usage.folderCount}</p>
      )}
      {usage.maxStorageBytes !== null ? (
        <div className="mt-2">
          <p>
            Storage: {formatBytes(usage.totalStorageBytes)} of {formatBytes(usage.maxStorageBytes)}
          </p>
          <Bar ratio={usage.totalStorageBytes / usage.maxStorageBytes} label="Storage used" />
        </div>
      ) : (
        <p className="mt-2">Storage: {formatBytes(usage.totalStorageBytes)}</p>
      )}
      {usage.approachingLimits ? (
        <p className="mt-2 text-amber-800">
          You're approaching your limits. Consider upgrading to Premium for unlimited access.
        </p>
      ) : null}
    </section>
  );
}

/** The upgrade banner: shown to everyone but an active premium user. */
function UpgradePrompt() {
  return (
    <section
      aria-label="Premium"
      className="rounded-xl border border-brand-200 bg-brand-50 p-3 text-xs text-brand-900"
    >
      <p>
        <strong>Go Premium:</strong> {perksInOneLine()}
      </p>
      <DelegatedLink
        to="/upgrade"
        className="btn-primary mt-2 w-full px-3 py-1.5"
        preventScrollReset
      >
        Upgrade to Premium
      </DelegatedLink>
    </section>
  );
}

/** Why nothing of the sender's is sent, and that nothing is lost (docs/product-rules.md, "Senders' reputation"). */
function SendingPausedBanner({ reason }: { reason: string }) {
  return (
    <section
      aria-labelledby="sending-paused"
      className="border-b border-red-200 bg-red-50 text-sm text-red-900"
    >
      <div className="mx-auto max-w-6xl px-4 py-3 sm:px-6">
        <h2 id="sending-paused" className="font-semibold">
          Your sending is paused
        </h2>
        <p>{reason}</p>
        <p>
          Mail that many people report or cannot receive puts every sender's mail at risk of being
          blocked. Nothing is sent until an admin has looked into it; your scheduled issues are
          held, not lost. To talk about it, write to us from the{" "}
          <DelegatedLink to="/support" className="underline">
            support page
          </DelegatedLink>
          .
        </p>
      </div>
    </section>
  );
}

function RecipientsBanner() {
  const location = useLocation();
  return (
    <div className="border-b border-brand-200 bg-brand-50">
      <div className="mx-auto flex max-w-6xl items-center justify-between gap-3 px-4 py-2 text-sm text-brand-900 sm:px-6">
        <p>New: each folder can now go to up to 5 recipients.</p>
        <DelegatedForm action="/dismiss-banner">
          <CsrfInput />
          <input type="hidden" name="returnTo" value={`${location.pathname}${location.search}`} />
          <button
            type="submit"
            className="rounded-sm px-2 py-1 font-semibold hover:bg-brand-100"
            aria-label="Dismiss the announcement"
          >
            Dismiss
          </button>
        </DelegatedForm>
      </div>
    </div>
  );
}

const ADD_BUTTONS = [
  ["link", "Add Link"],
  ["musing", "Add Musings"],
  ["photo", "Add Photos"],
  ["file", "Add Files"],
  ["video", "Add Video"],
] as const;

/** Send Now opens its confirmation (a dialog route); when it cannot send, it says why. */
function SendNowButton({ folder, senderPaused }: { folder: Folder; senderPaused: boolean }) {
  const root = useRouteLoaderData<typeof rootLoader>("root");
  const blocker = sendNowBlocker({
    ...folder,
    senderVerified: Boolean(root?.user?.emailVerified),
    senderPaused,
    sendUnderWay: folder.sendStatus?.state === "under way",
  });
  if (!blocker) {
    return (
      <DelegatedLink
        to={`/folders/${folder.id}/confirm-send`}
        className="btn-secondary"
        preventScrollReset
      >
        Send Now
      </DelegatedLink>
    );
  }
  return (
    <div className="flex max-w-[14rem] flex-col items-start">
      <button
        type="button"
        disabled
        aria-describedby={`send-now-blocker-${folder.id}`}
        className="btn-secondary"
      >
        Send Now
      </button>
      <p id={`send-now-blocker-${folder.id}`} className="mt-1 text-xs text-stone-600">
        {blocker}
      </p>
    </div>
  );
}

/**
 * The folder's latest send while its copies wait, or once it failed: what it does, why, and
 * what to do (docs/decisions/0243-the-sender-sees-what-the-send-is-doing.md).
 */
function SendStatusNotice({ folderId, status }: { folderId: number; status: SendStatus }) {
  const failed = status.state === "failed";
  return (
    <section
      aria-labelledby={`send-status-${folderId}`}
      className={`rounded-xl border p-3 text-sm ${
        failed
          ? "border-red-200 bg-red-50 text-red-900"
          : "border-amber-200 bg-amber-50 text-amber-900"
      }`}
    >
      <h3 id={`send-status-${folderId}`} className="font-semibold">
        {status.line}
      </h3>
      {failed ? <p className="mt-1">{status.why}</p> : null}
      {status.todo ? <p className="mt-1">{status.todo}</p> : null}
    </section>
  );
}

const MORE_ENTRY =
  "flex min-h-11 w-full items-center px-4 text-left text-sm text-stone-800 hover:bg-stone-100 disabled:cursor-not-allowed disabled:opacity-50";

/** Skip the next issue, or bring it back (docs/decisions/0213-skip-the-next-issue.md). */
function SkipButton({ folder }: { folder: Folder }) {
  const label = folder.skippedLabel ? `Undo Skip (${folder.skippedLabel})` : "Skip Next Issue";
  return (
    <ActionButton
      folderId={folder.id}
      intent={folder.skippedLabel ? "undo-skip" : "skip-next"}
      label={label}
      className={MORE_ENTRY}
      disabled={folder.isPaused || folder.isUnsubscribed}
    >
      {label}
    </ActionButton>
  );
}

/**
 * The folder's less frequent actions, behind one "More" button: a <details>
 * that opens without JavaScript (docs/decisions/0143-one-first-action-per-screen.md).
 */
function MoreMenu({ folder }: { folder: Folder }) {
  const menu = useDetailsMenu();
  const pauseLabel = folder.isPaused ? "Resume Delivery" : "Pause Delivery";
  return (
    // Not positioned itself: on a phone the menu spans the row of buttons, wherever "More" wrapped
    // to, so it never opens past the screen's edge; from `sm` it opens under "More".
    <details ref={menu}>
      <summary className="btn-secondary cursor-pointer list-none [&::-webkit-details-marker]:hidden">
        More
      </summary>
      <div className="absolute inset-x-0 z-30 mt-1 overflow-hidden rounded-xl border border-stone-200 bg-white py-1 shadow-lg sm:inset-x-auto sm:w-56">
        <DelegatedLink to={`/folders/${folder.id}/sent`} className={MORE_ENTRY} preventScrollReset>
          Sent
        </DelegatedLink>
        <ActionButton
          folderId={folder.id}
          intent="toggle-pause"
          label={pauseLabel}
          className={MORE_ENTRY}
          disabled={folder.isUnsubscribed}
        >
          {pauseLabel}
        </ActionButton>
        <SkipButton folder={folder} />
        <DelegatedLink to={`/folders/${folder.id}/note`} className={MORE_ENTRY} preventScrollReset>
          Note for the Next Issue
        </DelegatedLink>
        <DelegatedLink to={`/folders/${folder.id}/edit`} className={MORE_ENTRY} preventScrollReset>
          Folder Settings
        </DelegatedLink>
        <DelegatedLink
          to={`/folders/${folder.id}/recipients`}
          className={MORE_ENTRY}
          preventScrollReset
        >
          Recipients
        </DelegatedLink>
        <DelegatedLink
          to={`/folders/${folder.id}/delete`}
          className={`${MORE_ENTRY} text-red-700`}
          preventScrollReset
        >
          Delete Folder
        </DelegatedLink>
      </div>
    </details>
  );
}

function AddButtons({ folder }: { folder: Folder }) {
  return (
    <div className="grid grid-cols-2 gap-2 sm:grid-cols-4">
      {ADD_BUTTONS.map(([type, label]) =>
        folder.isUnsubscribed ? (
          <span
            key={type}
            aria-disabled="true"
            className="btn-primary cursor-not-allowed opacity-50"
          >
            {label}
          </span>
        ) : (
          <DelegatedLink
            key={type}
            to={`/folders/${folder.id}/add/${type}`}
            className="btn-primary"
            preventScrollReset
          >
            {label}
          </DelegatedLink>
        ),
      )}
    </div>
  );
}

/** The note the next issue opens with, and the way to change it (docs/decisions/0212-a-note-for-one-issue.md). */
function IssueNoteLine({ folder }: { folder: Folder }) {
  return (
    <section
      aria-labelledby={`issue-note-${folder.id}`}
      className="rounded-xl border border-stone-200 bg-stone-50 p-3 text-sm"
    >
      <h3 id={`issue-note-${folder.id}`} className="text-stone-600">
        At the top of the next issue
      </h3>
      <p className="mt-1 whitespace-pre-line wrap-break-word text-stone-900">{folder.issueNote}</p>
      <DelegatedLink
        to={`/folders/${folder.id}/note`}
        className="mt-1 inline-flex min-h-11 items-center font-medium text-stone-900 underline"
        preventScrollReset
      >
        Change note
      </DelegatedLink>
    </section>
  );
}

/**
 * Every recipient left: what that means and the one next step, above the Add buttons it greys
 * (docs/decisions/0249-the-sender-told-when-the-last-recipient-leaves.md).
 */
function EveryoneLeftNotice({ folder }: { folder: Folder }) {
  return (
    <section
      aria-labelledby={`everyone-left-${folder.id}`}
      className="rounded-xl border border-amber-200 bg-amber-50 p-3 text-sm text-amber-900"
    >
      <h3 id={`everyone-left-${folder.id}`} className="font-semibold">
        Nobody gets this folder now
      </h3>
      <p className="mt-1">
        {`${folder.everyoneLeft}. No issue goes out until it has a recipient again; what you saved stays here.`}
      </p>
      <DelegatedLink
        to={`/folders/${folder.id}/edit`}
        className="btn-primary mt-2"
        preventScrollReset
      >
        Add a recipient
      </DelegatedLink>
    </section>
  );
}

/** The folder: first what is done most, adding; then sending; the rest behind "More". */
function FolderDetail({ folder, data }: { folder: Folder; data: Data }) {
  useRefreshWhilePreviewsPending(
    data.items.some((item) => "previewPending" in item || "videoPreparing" in item),
  );
  const ratio = folder.totalSize / folder.maxSize;
  const autoPaused = folder.pauseReason === "storage_exceeded";
  return (
    <section aria-labelledby="folder-heading" className="space-y-5">
      <div className="space-y-4 rounded-2xl border border-stone-200 bg-white p-5 shadow-xs">
        <div className="min-w-0">
          <h2
            id="folder-heading"
            className="wrap-break-word font-serif text-2xl font-semibold text-stone-900"
          >
            {folder.name}
          </h2>
          <p className="mt-1 text-sm text-stone-700">{folder.recipientLabel}</p>
          {folder.unsubscribedCount > 0 ? (
            <p className="mt-0.5 text-sm text-amber-800">{folder.unsubscribedCount} unsubscribed</p>
          ) : null}
        </div>
        {folder.everyoneLeft ? <EveryoneLeftNotice folder={folder} /> : null}
        <AddButtons folder={folder} />
        <InboxAddressLine folderId={folder.id} inbox={data.inbox} />
        <div className="relative flex flex-wrap items-start gap-2">
          <SendNowButton folder={folder} senderPaused={data.sendingPause !== null} />
          <DelegatedLink
            to={`/folders/${folder.id}/preview`}
            className="btn-secondary"
            preventScrollReset
          >
            Email Preview
          </DelegatedLink>
          <MoreMenu folder={folder} />
        </div>
        {folder.sendStatus ? (
          <SendStatusNotice folderId={folder.id} status={folder.sendStatus} />
        ) : null}
        <dl className="grid gap-3 text-sm sm:grid-cols-3">
          <div>
            <dt className="text-stone-600">Schedule</dt>
            <dd className="font-medium text-stone-900">
              {folder.isPaused ? "Paused" : folder.scheduleLine}
            </dd>
          </div>
          <div>
            <dt className="text-stone-600">Next:</dt>
            <dd className="font-medium text-stone-900">{folder.nextLabel}</dd>
            {folder.skippedLabel ? (
              <dd className="text-stone-700">{`${folder.skippedLabel} skipped`}</dd>
            ) : null}
          </div>
          <div>
            <dt className="text-stone-600">Collected</dt>
            <dd className="font-medium text-stone-900">
              {pluralize(folder.itemCount, "item")} · {formatBytes(folder.totalSize)}
            </dd>
          </div>
        </dl>
        {folder.issueNote ? <IssueNoteLine folder={folder} /> : null}
        <div className="text-xs text-stone-700">
          <p>
            {formatBytes(folder.totalSize)} of {formatBytes(folder.maxSize)}
            {autoPaused ? (
              <span className="ml-2 font-semibold text-red-700">Folder Auto-Paused</span>
            ) : null}
          </p>
          <Bar ratio={ratio} label="Folder size" />
        </div>
      </div>
      <PendingSavesList folderId={folder.id} />
      <ItemList folderId={folder.id} items={data.items} pagination={data.pagination} />
    </section>
  );
}

/** On a phone, the other folders one tap away above the selected one (the full list is below it). */
function FolderSwitcher({ folders, selectedId }: { folders: Folder[]; selectedId?: number }) {
  return (
    <nav aria-label="Switch folder" className="-mx-4 mb-4 overflow-x-auto px-4 lg:hidden">
      <ul className="flex gap-2">
        {folders.map((folder) => (
          <li key={folder.id} className="shrink-0">
            <DelegatedLink
              to={`/folders/${folder.id}`}
              aria-current={folder.id === selectedId ? "page" : undefined}
              className={`inline-flex min-h-11 max-w-[12rem] items-center rounded-full border px-4 text-sm font-medium ${
                folder.id === selectedId
                  ? "border-brand-700 bg-brand-700 text-white"
                  : "border-stone-300 bg-white text-stone-800"
              }`}
            >
              <span className="truncate">{folder.name}</span>
            </DelegatedLink>
          </li>
        ))}
      </ul>
    </nav>
  );
}

/** "3 new answers": recipients' hearts and notes since the sender last opened Save, where they are. */
function NewAnswersLink({ count }: { count: number }) {
  if (count === 0) return null;
  return (
    <DelegatedLink
      to="/save"
      className="mb-4 inline-flex min-h-11 items-center rounded-full bg-rose-50 px-4 text-sm font-medium text-rose-900 underline"
    >
      <span aria-hidden="true">♥&nbsp;</span>
      {count === 1 ? "1 new answer" : `${count} new answers`}
    </DelegatedLink>
  );
}

function EmptyState() {
  return (
    <div className="rounded-2xl border border-dashed border-stone-300 bg-white/60 p-10 text-center">
      <p className="text-stone-700">Create a folder to start saving content.</p>
      <DelegatedLink to="/folders/new" className="btn-primary mt-5">
        Create Folder
      </DelegatedLink>
    </div>
  );
}

export function DashboardPage({ data, children }: { data: Data; children?: ReactNode }) {
  const { folders, selected, usage } = data;
  return (
    <AppShell>
      {data.sendingPause ? <SendingPausedBanner reason={data.sendingPause.reason} /> : null}
      {data.bannerDismissed ? null : <RecipientsBanner />}
      <div className="mx-auto grid max-w-6xl gap-6 px-4 py-6 sm:px-6 lg:grid-cols-[18rem_1fr]">
        {/* min-w-0: a long unbroken URL or name must not widen the column past the screen.
            The folder comes first, on a phone and to Tab (its Add buttons a few Tabs from the
            top); from `lg` the list, usage and offers sit in the column to its left. */}
        <div className="min-w-0 lg:col-start-2 lg:row-start-1">
          <NewAnswersLink count={data.newAnswers} />
          {folders.length > 1 ? (
            <FolderSwitcher folders={folders} selectedId={selected?.id} />
          ) : null}
          {selected ? <FolderDetail folder={selected} data={data} /> : <EmptyState />}
        </div>
        <aside
          aria-labelledby="my-folders"
          className="min-w-0 stack-y-3 lg:col-start-1 lg:row-start-1"
        >
          <div className="flex items-center justify-between">
            <h1 id="my-folders" className="font-serif text-xl font-semibold text-stone-900">
              My Folders
            </h1>
            <DelegatedLink to="/folders/new" className="btn-primary px-3 py-1.5" preventScrollReset>
              New
            </DelegatedLink>
          </div>
          <UsageBox usage={usage} />
          {usage.tier === "premium" ? null : <UpgradePrompt />}
          <DelegatedLink to="/invite" className="btn-secondary w-full" preventScrollReset>
            Invite friends, get folders
          </DelegatedLink>
          {folders.length > 0 ? (
            <DelegatedLink to="/upload" className="btn-secondary w-full" preventScrollReset>
              Upload to Multiple Folders
            </DelegatedLink>
          ) : null}
          {folders.length > 0 ? <FolderList folders={folders} selectedId={selected?.id} /> : null}
        </aside>
      </div>
      {children}
    </AppShell>
  );
}
