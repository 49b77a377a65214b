import { Stat, StatGrid } from "~/components/admin-dashboard/admin";
import { DataTable } from "~/components/ui/data-table";
import { formatNumber } from "~/modules/admin/admin-display";
import type { RelayStatus } from "~/modules/sending/relay-hold.server";
import { formatUtc } from "~/platform/dates";

/**
 * The SMTP relay as the operator needs to see it (docs/deploy.md, "The relay refuses us"):
 * whether it refuses us now, in its own words, and the sends whose message it refused.
 * docs/decisions/0240-every-smtp-answer-read-for-what-it-is-about.md
 */

const at = (date: Date) => (
  <time dateTime={date.toISOString()}>{formatUtc(date.toISOString())}</time>
);

const tries = (count: number) => `${formatNumber(count)} ${count === 1 ? "try" : "tries"}`;

/** Shown at the top of the admin dashboard while sending is held; nothing otherwise. */
export function RelayHoldNotice({ relay }: { relay: RelayStatus }) {
  const { hold } = relay;
  if (!hold) return null;
  return (
    <section
      aria-labelledby="relay-hold-title"
      className="rounded-2xl border border-red-400 bg-red-50 p-5 text-red-900 shadow-xs"
    >
      <h2 id="relay-hold-title" className="font-serif text-xl font-semibold">
        Sending is held: the mail relay refuses us
      </h2>
      <p className="mt-2 break-words">
        At {hold.stage} it answered: <q className="font-mono text-sm">{hold.answer}</q>
      </p>
      <p className="mt-1 text-sm">
        Since {at(hold.since)}, {tries(hold.refusals)} refused.{" "}
        {hold.nextTryAt ? <>Next try at {at(hold.nextTryAt)}.</> : null} Nobody is marked bounced;
        every copy waits and goes once the relay takes mail again. What to do: the deploy guide,
        “The relay refuses us”.
      </p>
    </section>
  );
}

/** The postmaster panel's part: the relay now, its last hold, and the sends it refused. */
export function RelayStatusDetail({ relay }: { relay: RelayStatus }) {
  const { hold, lastHold, refusedSends } = relay;
  return (
    <>
      <StatGrid>
        <Stat
          label="Mail relay"
          value={hold ? "Refusing us" : "Taking mail"}
          level={hold ? "critical" : "normal"}
          hint={
            hold ? (
              <>
                At {hold.stage}: “{hold.answer}” since {at(hold.since)}
              </>
            ) : lastHold ? (
              <>
                Last held from {at(lastHold.since)} to {at(lastHold.endedAt)} (at {lastHold.stage}:
                “{lastHold.answer}”)
              </>
            ) : (
              "It has never refused us"
            )
          }
        />
        <Stat
          label="Sends whose message it refused"
          value={formatNumber(refusedSends.length)}
          hint="In the last 30 days; nobody was bounced for them"
          level={refusedSends.some((send) => send.outcome === "failed") ? "warning" : "normal"}
        />
      </StatGrid>
      {refusedSends.length > 0 ? (
        <DataTable
          caption="Sends whose message the relay refused"
          className="mt-3"
          rows={refusedSends}
          rowKey={(send) => send.ledgerId}
          columns={[
            { id: "when", header: "Last refused", cell: (send) => at(send.lastAt) },
            {
              id: "folder",
              header: "Folder",
              cellClassName: "break-all",
              cell: (send) => `${send.folderName} (send ${send.ledgerId})`,
            },
            {
              id: "answer",
              header: "The relay's answer",
              cellClassName: "break-words",
              cell: (send) => `At ${send.stage}: ${send.answer}`,
            },
            { id: "tries", header: "Refused", align: "end", cell: (send) => tries(send.refusals) },
            {
              id: "outcome",
              header: "Now",
              cell: (send) =>
                send.outcome === "waiting"
                  ? "Waiting for a retry"
                  : send.outcome === "sent"
                    ? "Sent after all"
                    : "Failed: its items wait for the next send",
            },
          ]}
        />
      ) : null}
    </>
  );
}
