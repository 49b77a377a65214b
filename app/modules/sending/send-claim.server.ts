import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import { and, eq, sql } from "drizzle-orm";
import { sendLedger } from "#db/schema";
import { db, prepareOnce, writeTransactionWithoutFsync } from "~/platform/db.server";

/**
 * Who may deliver a ledger: the holder of its claim, a lease that the holder
 * renews while it works. A dead holder stops renewing, so its claim is free
 * once the lease runs out; sooner when the holder can be seen to be gone.
 *
 * A process id alone cannot tell: a killed process answers `kill(pid, 0)`
 * until it is reaped, and a new process (after a container restart, say) may
 * get the same id. So the holder names itself by host, kernel boot, pid
 * namespace, pid and the process's start time (the kernel's own identity of
 * a process), plus a random part. Another process on the same kernel and pid
 * namespace can then read /proc and tell for sure; anyone else waits out the
 * lease.
 */
export const LEASE_MS = 60_000;
/** Renewed four times per lease, so a holder that is alive never loses it to a late timer. */
export const RENEW_EVERY_MS = LEASE_MS / 4;

type ProcessIdentity = { host: string; boot: string; pidNamespace: string; pid: number };

function readText(file: string) {
  try {
    return fs.readFileSync(file, "utf8").trim();
  } catch {
    return "";
  }
}

function pidNamespace() {
  try {
    return fs.readlinkSync("/proc/self/ns/pid");
  } catch {
    return "";
  }
}

/** A process's state letter and start time (clock ticks since boot) from /proc, or null if it does not exist. */
export function processStatus(pid: number): { state: string; startTicks: string } | null {
  const stat = readText(`/proc/${pid}/stat`);
  if (!stat) return null;
  // The command name (field 2) may hold spaces and parentheses: the fields after it follow the last ")".
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return { state: fields[0] ?? "", startTicks: fields[19] ?? "" };
}

const self: ProcessIdentity = {
  host: os.hostname(),
  boot: readText("/proc/sys/kernel/random/boot_id"),
  pidNamespace: pidNamespace(),
  pid: process.pid,
};

export const holderId = [
  self.host,
  self.boot,
  self.pidNamespace,
  self.pid,
  processStatus(process.pid)?.startTicks ?? "",
  crypto.randomBytes(3).toString("hex"),
].join("|");

/**
 * True only when the holder certainly no longer runs: it lived on this kernel
 * and pid namespace, and its pid is now free, a zombie, or another process.
 */
export function holderIsGone(claimedBy: string) {
  const [host, boot, namespace, pid, startTicks] = claimedBy.split("|");
  if (!boot || !namespace || !startTicks) return false;
  if (host !== self.host || boot !== self.boot || namespace !== self.pidNamespace) return false;
  const status = processStatus(Number(pid));
  if (!status) return true;
  return status.startTicks !== startTicks || status.state === "Z" || status.state === "X";
}

/**
 * Takes the ledger's claim if nobody holds it, its lease ran out, or its holder
 * is gone. Not fsynced: a claim a power cut loses was held by a process that
 * is gone too, and the next durable commit (a "sent" mark, the finish) makes
 * it durable before anything depends on it.
 */
export function claimLedger(ledgerId: number) {
  return writeTransactionWithoutFsync(() => {
    const statements = claimStatements();
    const ledger = statements.ledger.get({ id: ledgerId });
    if (ledger?.status !== "sending") return false;
    const now = Date.now();
    const held =
      ledger.claimedBy !== null &&
      (ledger.leaseExpiresAt?.getTime() ?? 0) > now &&
      !holderIsGone(ledger.claimedBy);
    if (held) return false;
    statements.take.run({ id: ledgerId, holder: holderId, nowMs: now, expiresMs: now + LEASE_MS });
    return true;
  });
}

/** Compiled once: a pass claims every ledger it sends. Timestamps as epoch ms. */
const claimStatements = prepareOnce((database) => ({
  ledger: database
    .select({
      status: sendLedger.status,
      claimedBy: sendLedger.claimedBy,
      leaseExpiresAt: sendLedger.leaseExpiresAt,
    })
    .from(sendLedger)
    .where(eq(sendLedger.id, sql.placeholder("id")))
    .prepare(),
  take: database
    .update(sendLedger)
    .set({
      claimedBy: sql`${sql.placeholder("holder")}`,
      claimedAt: sql`${sql.placeholder("nowMs")}`,
      leaseExpiresAt: sql`${sql.placeholder("expiresMs")}`,
    })
    .where(eq(sendLedger.id, sql.placeholder("id")))
    .prepare(),
}));

/** Moves the lease on; false when the claim is no longer ours (the send must stop). */
export function renewClaim(ledgerId: number) {
  const result = db
    .update(sendLedger)
    .set({ leaseExpiresAt: new Date(Date.now() + LEASE_MS) })
    .where(
      and(
        eq(sendLedger.id, ledgerId),
        eq(sendLedger.status, "sending"),
        eq(sendLedger.claimedBy, holderId),
      ),
    )
    .run();
  return result.changes > 0;
}

const claimStatement = prepareOnce((database) =>
  database
    .select({ claimedBy: sendLedger.claimedBy, leaseExpiresAt: sendLedger.leaseExpiresAt })
    .from(sendLedger)
    .where(eq(sendLedger.id, sql.placeholder("id")))
    .prepare(),
);

/** Whether the claim is still ours and unexpired: asked before each message goes out. */
export function stillHolds(ledgerId: number) {
  const row = claimStatement().get({ id: ledgerId });
  return row?.claimedBy === holderId && (row.leaseExpiresAt?.getTime() ?? 0) > Date.now();
}

export function releaseClaim(ledgerId: number) {
  db.update(sendLedger)
    .set({ claimedBy: null, claimedAt: null, leaseExpiresAt: null })
    .where(and(eq(sendLedger.id, ledgerId), eq(sendLedger.claimedBy, holderId)))
    .run();
}

/**
 * Holds the claim while `work` runs: renews the lease on a timer and
 * releases it at the end (finishing a ledger clears its claim itself).
 */
export async function whileHolding<T>(ledgerId: number, work: () => Promise<T>) {
  const renewal = setInterval(() => renewClaim(ledgerId), RENEW_EVERY_MS);
  renewal.unref();
  try {
    return await work();
  } finally {
    clearInterval(renewal);
    releaseClaim(ledgerId);
  }
}
