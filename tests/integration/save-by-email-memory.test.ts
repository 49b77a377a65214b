import { execFileSync } from "node:child_process";
import { Readable } from "node:stream";
import { expect, test } from "vitest";
import { waitUntil } from "../support/integration";
import { PRODUCTION_HEAP_FLAGS } from "../support/production-heap";
import { startSaveByEmailWorld } from "../support/save-by-email-world";

/**
 * Issue 44, with real parts (the production build with fly.toml's heap, its
 * SMTP receiver, a DNS server and an SMTP sink on loopback): a message waits
 * in the spool, not in memory, while it is checked; a message whose parse
 * finds no room in the memory budget is told to try later, and is saved when
 * it is sent again (docs/decisions/0178-smtp-mail-spooled-and-parsed-under-the-memory-budget.md).
 * Needs `npm run build` first.
 */
const world = await startSaveByEmailWorld();
const { dns, address, folder, itemsOf, smtpSend, spooledFiles } = world;
const { budgetBytesFor } = await import("~/platform/memory-budget.server");
const { parseReservationBytes } = await import("~/modules/save-by-email/message-parse.server");
const { measureMessage } = await import("~/modules/save-by-email/message-shape.server");

/** The budget of the server's process: a quarter of the heap that tests/support/app-server.ts gives it. */
const serverBudget = budgetBytesFor(
  Number(
    execFileSync(process.execPath, [
      ...PRODUCTION_HEAP_FLAGS,
      "-p",
      "require('v8').getHeapStatistics().heap_size_limit",
    ]).toString(),
  ),
);

/** A long note from Ada, so long that its parse needs more than half of the server's budget. */
const longNote = (subject: string) => ({
  from: "Ada <ada@family.test>",
  to: address,
  subject,
  text: "Notes for the soup, one line after the other, to keep them all.\n".repeat(14_000),
});

test("a message waits on disk while it is checked; one finding no room to be read is told to try later, and is saved when sent again", async () => {
  const raw = await world.rawMessageBytes(longNote("Sizing"));
  const shape = await measureMessage(Readable.from([raw]));
  if (typeof shape === "string") throw new Error(shape);
  const reservation = parseReservationBytes(shape);
  // One message's parse fits the budget, two at once do not.
  expect(reservation).toBeLessThanOrEqual(serverBudget);
  expect(2 * reservation).toBeGreaterThan(serverBudget);

  // The first message's DKIM key is held back: it stays mid-check, its reservation taken.
  const release = dns.hold("sel._domainkey.family.test");
  const first = smtpSend(longNote("First"));
  try {
    await waitUntil(() => dns.held() > 0, 10_000, "the first message's DKIM question");
    expect(spooledFiles()).toHaveLength(1);
    await expect(smtpSend(longNote("Second"))).rejects.toMatchObject({ responseCode: 452 });
    // The refused message's file is gone; the waiting one's is still there.
    expect(spooledFiles()).toHaveLength(1);
  } finally {
    release();
  }
  await first;
  await smtpSend(longNote("Second"));
  expect(itemsOf(folder.id).map((item) => item.title)).toEqual(["First", "Second"]);
  expect(spooledFiles()).toEqual([]);
}, 60_000);
