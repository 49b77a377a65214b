import { type ChildProcess, spawn } from "node:child_process";
import { eq } from "drizzle-orm";
import { afterEach, describe, expect, test } from "vitest";
import { createFolder, createUser } from "#db/factories";
import { sendLedger } from "#db/schema";
import { db } from "~/platform/db.server";
import {
  claimLedger,
  holderId,
  holderIsGone,
  LEASE_MS,
  processStatus,
  releaseClaim,
  renewClaim,
  stillHolds,
} from "./send-claim.server";

const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) child.kill("SIGKILL");
});

/** Another holder on this machine: our own identity with another pid and start time. */
function holderFor(pid: number, startTicks: string) {
  const [host, boot, namespace] = holderId.split("|");
  return [host, boot, namespace, pid, startTicks, "abcdef"].join("|");
}

/** Reads the first line a child prints (a pid). */
function firstLine(child: ChildProcess) {
  return new Promise<string>((resolve) => {
    child.stdout?.once("data", (chunk: Buffer) => resolve(chunk.toString().trim()));
  });
}

async function waitForState(pid: number, state: string) {
  const deadline = Date.now() + 5_000;
  while (processStatus(pid)?.state !== state) {
    if (Date.now() > deadline) throw new Error(`process ${pid} never reached state ${state}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe("holderIsGone", () => {
  test("a running process is alive; the same pid with another start time is another process", () => {
    const start = processStatus(process.pid)!.startTicks;
    expect(holderIsGone(holderId)).toBe(false);
    expect(holderIsGone(holderFor(process.pid, start))).toBe(false);
    // A container restart (or a long uptime) gives the pid to a new process: not the holder.
    expect(holderIsGone(holderFor(process.pid, String(Number(start) + 1)))).toBe(true);
  });

  test("a killed process that is not reaped yet (a zombie) is gone", async () => {
    // sh starts a child, kills it and becomes `sleep`, which never reaps it.
    const shell = spawn("sh", ["-c", "sleep 60 & echo $!; kill -9 $!; exec sleep 30"], {
      stdio: ["ignore", "pipe", "ignore"],
    });
    children.push(shell);
    const pid = Number(await firstLine(shell));
    await waitForState(pid, "Z");
    expect(holderIsGone(holderFor(pid, processStatus(pid)!.startTicks))).toBe(true);
  });

  test("a process that has exited is gone; another machine's holder is never judged", async () => {
    const child = spawn("sleep", ["30"]);
    children.push(child);
    const startTicks = processStatus(child.pid!)!.startTicks;
    expect(holderIsGone(holderFor(child.pid!, startTicks))).toBe(false);
    child.kill("SIGKILL");
    await new Promise((resolve) => child.once("exit", resolve));
    expect(holderIsGone(holderFor(child.pid!, startTicks))).toBe(true);
    const [, boot, namespace, pid, start] = holderFor(child.pid!, startTicks).split("|");
    expect(holderIsGone(["elsewhere", boot, namespace, pid, start, "x"].join("|"))).toBe(false);
    // The format before leases (host:pid:random) waits out the lease.
    expect(holderIsGone(`host:${child.pid}:abcdef`)).toBe(false);
  });
});

let counter = 0;
function sendingLedger(claim: Partial<typeof sendLedger.$inferInsert> = {}) {
  counter += 1;
  const user = createUser(db, { email: `claims${counter}@example.com` });
  const folder = createFolder(db, user.id, { name: "Claims", recipients: [] });
  return db
    .insert(sendLedger)
    .values({
      folderId: folder.id,
      occurrenceKey: `k${counter}`,
      trigger: "schedule",
      status: "sending",
      ...claim,
    })
    .returning()
    .get();
}

function ledger(id: number) {
  return db.select().from(sendLedger).where(eq(sendLedger.id, id)).get()!;
}

describe("claimLedger", () => {
  test("takes a free claim with a lease, renews it, and releases it", () => {
    const { id } = sendingLedger();
    const before = Date.now();
    expect(claimLedger(id)).toBe(true);
    expect(ledger(id).claimedBy).toBe(holderId);
    expect(ledger(id).leaseExpiresAt!.getTime()).toBeGreaterThanOrEqual(before + LEASE_MS);
    expect(stillHolds(id)).toBe(true);
    expect(claimLedger(id)).toBe(false);
    expect(renewClaim(id)).toBe(true);
    releaseClaim(id);
    expect(ledger(id)).toMatchObject({ claimedBy: null, claimedAt: null, leaseExpiresAt: null });
  });

  test("waits for a live holder's lease, takes an expired one, and the old holder then stops", () => {
    const live = holderFor(process.pid, processStatus(process.pid)!.startTicks);
    const { id } = sendingLedger({
      claimedBy: live,
      claimedAt: new Date(),
      leaseExpiresAt: new Date(Date.now() + LEASE_MS),
    });
    expect(claimLedger(id)).toBe(false);
    db.update(sendLedger)
      .set({ leaseExpiresAt: new Date(Date.now() - 1) })
      .where(eq(sendLedger.id, id))
      .run();
    expect(claimLedger(id)).toBe(true);
    // The holder that stalled past its lease learns it lost the claim.
    db.update(sendLedger).set({ claimedBy: live }).where(eq(sendLedger.id, id)).run();
    expect(stillHolds(id)).toBe(false);
    expect(renewClaim(id)).toBe(false);
  });

  test("takes over at once from a holder that is gone, lease or not", () => {
    const gone = holderFor(process.pid, String(Number(processStatus(process.pid)!.startTicks) + 1));
    const { id } = sendingLedger({
      claimedBy: gone,
      claimedAt: new Date(),
      leaseExpiresAt: new Date(Date.now() + LEASE_MS),
    });
    expect(claimLedger(id)).toBe(true);
    expect(ledger(id).claimedBy).toBe(holderId);
  });

  test("a finished ledger cannot be claimed", () => {
    const { id } = sendingLedger({ status: "sent" });
    expect(claimLedger(id)).toBe(false);
    expect(ledger(id).claimedBy).toBeNull();
  });
});
