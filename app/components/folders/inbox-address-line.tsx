import { DelegatedLink } from "~/components/layout/delegated-navigation";
import { CopyButton } from "~/components/ui/copy-button";
import { REFUSED_MAIL_DAYS } from "~/modules/save-by-email/refused-mail";
import { pluralize } from "~/utils/format";

/**
 * Under the Add buttons: the folder's own address for saving by e-mail
 * (docs/decisions/0158-save-by-email.md), or the way to get one. Absent when
 * the deployment receives no mail.
 */
export function InboxAddressLine({
  folderId,
  inbox,
}: {
  folderId: number;
  inbox: { address: string | null; refused: { total: number; reasons: string[] } | null } | null;
}) {
  if (!inbox) return null;
  const settings = `/folders/${folderId}/email-address`;
  if (!inbox.address) {
    return (
      <p className="text-sm text-stone-700">
        <DelegatedLink
          to={settings}
          className="inline-flex min-h-11 items-center underline"
          preventScrollReset
        >
          Save to this folder by e-mail
        </DelegatedLink>
      </p>
    );
  }
  return (
    <div className="space-y-2">
      <div className="flex flex-wrap items-center gap-x-3 gap-y-1 text-sm text-stone-700">
        <span>
          Or e-mail it to{" "}
          <a
            href={`mailto:${inbox.address}`}
            className="inline-flex min-h-11 items-center break-all font-mono text-stone-900 underline"
          >
            {inbox.address}
          </a>
        </span>
        <CopyButton text={inbox.address} label="Copy" />
        <DelegatedLink
          to={settings}
          className="inline-flex min-h-11 items-center underline"
          preventScrollReset
        >
          About this address
        </DelegatedLink>
      </div>
      {inbox.refused ? <RefusedMailNote refused={inbox.refused} /> : null}
    </div>
  );
}

/** Mail the address turned away without an answer (refused-mail.server.ts): only the owner hears of it, here. */
function RefusedMailNote({ refused }: { refused: { total: number; reasons: string[] } }) {
  return (
    <p className="rounded-lg bg-amber-50 px-3 py-2 text-sm text-amber-950">
      Not saved in the last {REFUSED_MAIL_DAYS} days:{" "}
      {pluralize(refused.total, "e-mail", "e-mails")} to this address. {refused.reasons.join("; ")}.
    </p>
  );
}
