import { eq } from "drizzle-orm";
import { afterEach, describe, expect, test, vi } from "vitest";
import { createFolder, createUser } from "#db/factories";
import { folders } from "#db/schema";
import { db } from "~/platform/db.server";
import { FolderSchema } from "./folder-validation";
import { FolderNotFoundError, getFolder, togglePause, updateFolder } from "./folders.server";
import { activeSkip, SkipRuleError, skipNextIssue, undoSkip } from "./skip.server";

/**
 * Skip the next issue (docs/decisions/0213-skip-the-next-issue.md) on the
 * owner's calendar: 00:01 in their zone, across daylight-saving changes.
 * The scheduler's side (nothing opened on the skipped day, one send on the
 * next) is in tests/integration/skip-next-issue.test.ts.
 */
afterEach(() => {
  vi.useRealTimers();
});

function setNow(iso: string) {
  vi.useFakeTimers({ toFake: ["Date"] });
  vi.setSystemTime(new Date(iso));
}

/** A weekly folder on Sundays for an owner in `timeZone`, its clock where the app puts it. */
function sundayFolder(timeZone: string, nextSendAt: string, values = {}) {
  const user = createUser(db, { timeZone });
  const folder = createFolder(db, user.id, {
    frequency: "weekly",
    dayOfWeek: 7,
    nextSendAt: new Date(nextSendAt),
    ...values,
  });
  return { user, folder };
}

const stored = (folderId: number) =>
  db.select().from(folders).where(eq(folders.id, folderId)).get()!;

describe("across a daylight-saving change", () => {
  test("London, clocks back on Sunday 25 October: skipped to 00:01 GMT on 1 November, and back to 00:01 BST", () => {
    setNow("2026-10-23T12:00:00Z");
    // 00:01 BST on Sunday 25 October is 23:01 UTC the day before.
    const { user, folder } = sundayFolder("Europe/London", "2026-10-24T23:01:00Z");

    const skipped = skipNextIssue(user.id, folder.id);
    expect(skipped.folder.nextSendAt!.toISOString()).toBe("2026-11-01T00:01:00.000Z");
    expect(skipped).toMatchObject({ skippedLabel: "Sun 25 Oct", nextLabel: "Sun 1 Nov" });
    expect(activeSkip(skipped.folder)!.toISOString()).toBe("2026-10-24T23:01:00.000Z");

    const undone = undoSkip(user.id, folder.id);
    expect(undone.folder.nextSendAt!.toISOString()).toBe("2026-10-24T23:01:00.000Z");
    expect(undone.folder.skippedSendAt).toBeNull();
    expect(activeSkip(undone.folder)).toBeNull();
  });

  test("London, clocks forward on Sunday 28 March: 00:01 GMT skipped for 00:01 BST a week on", () => {
    setNow("2027-03-25T09:00:00Z");
    const { user, folder } = sundayFolder("Europe/London", "2027-03-21T00:01:00Z");
    // The stored clock is already past (not yet sent): that occurrence is the scheduler's.
    expect(() => skipNextIssue(user.id, folder.id)).toThrow(SkipRuleError);
    db.update(folders)
      .set({ nextSendAt: new Date("2027-03-28T00:01:00Z") })
      .where(eq(folders.id, folder.id))
      .run();
    const { folder: moved } = skipNextIssue(user.id, folder.id);
    expect(moved.nextSendAt!.toISOString()).toBe("2027-04-03T23:01:00.000Z");
  });

  test("Santiago, where 00:01 does not exist on 6 September: the skip lands on 01:01, the first minute after", () => {
    setNow("2026-08-27T15:00:00Z");
    // 00:01 on Sunday 30 August in Chile (UTC-4).
    const { user, folder } = sundayFolder("America/Santiago", "2026-08-30T04:01:00Z");
    const { folder: moved, nextLabel } = skipNextIssue(user.id, folder.id);
    // 01:01 on 6 September, now UTC-3.
    expect(moved.nextSendAt!.toISOString()).toBe("2026-09-06T04:01:00.000Z");
    expect(nextLabel).toBe("Sun 6 Sep");
  });
});

describe("the skip holds through every recomputation of the clock", () => {
  test("editing the folder's name keeps it; moving its day drops it, since that day is no longer a delivery", () => {
    setNow("2026-10-23T12:00:00Z");
    const { user, folder } = sundayFolder("Europe/London", "2026-10-24T23:01:00Z", {
      name: "Family",
    });
    skipNextIssue(user.id, folder.id);
    const input = (values: Record<string, string>) =>
      FolderSchema.parse({
        name: "Family news",
        recipients: [{ name: "Mum", email: "mum@example.com" }],
        frequency: "weekly",
        dayOfWeek: "7",
        ...values,
      });
    updateFolder(user.id, folder.id, input({}));
    expect(stored(folder.id).nextSendAt!.toISOString()).toBe("2026-11-01T00:01:00.000Z");
    updateFolder(user.id, folder.id, input({ dayOfWeek: "6" }));
    expect(stored(folder.id).nextSendAt!.toISOString()).toBe("2026-10-23T23:01:00.000Z");
    expect(activeSkip(stored(folder.id))).toBeNull();
    expect(() => undoSkip(user.id, folder.id)).toThrow(SkipRuleError);
  });

  test("pausing and resuming keeps it; a paused folder has nothing to skip", () => {
    setNow("2026-10-23T12:00:00Z");
    const { user, folder } = sundayFolder("Europe/London", "2026-10-24T23:01:00Z");
    skipNextIssue(user.id, folder.id);
    togglePause(user.id, folder.id);
    expect(() => undoSkip(user.id, folder.id)).toThrow(SkipRuleError);
    togglePause(user.id, folder.id);
    expect(stored(folder.id).nextSendAt!.toISOString()).toBe("2026-11-01T00:01:00.000Z");

    const paused = sundayFolder("Europe/London", "2026-10-24T23:01:00Z", { isPaused: true });
    expect(() => skipNextIssue(paused.user.id, paused.folder.id)).toThrow(SkipRuleError);
  });

  test("a biweekly folder skips to the delivery two weeks on", () => {
    setNow("2026-11-02T12:00:00Z");
    const user = createUser(db, { timeZone: "UTC" });
    const folder = createFolder(db, user.id, {
      frequency: "biweekly",
      dayOfWeek: 1,
      lastSentAt: new Date("2026-10-26T00:01:00Z"),
      nextSendAt: new Date("2026-11-09T00:01:00Z"),
    });
    const { folder: moved } = skipNextIssue(user.id, folder.id);
    expect(moved.nextSendAt!.toISOString()).toBe("2026-11-23T00:01:00.000Z");
  });
});

describe("what is refused", () => {
  test("one skip at a time, no undo once the skipped day has passed, and none of another sender's folder", () => {
    setNow("2026-10-23T12:00:00Z");
    const { user, folder } = sundayFolder("Europe/London", "2026-10-24T23:01:00Z");
    skipNextIssue(user.id, folder.id);
    expect(() => skipNextIssue(user.id, folder.id)).toThrow(/skipped already/);

    vi.setSystemTime(new Date("2026-10-25T08:00:00Z"));
    expect(() => undoSkip(user.id, folder.id)).toThrow(/its day has passed/);
    expect(getFolder(user.id, folder.id).nextSendAt!.toISOString()).toBe(
      "2026-11-01T00:01:00.000Z",
    );

    const stranger = createUser(db);
    expect(() => skipNextIssue(stranger.id, folder.id)).toThrow(FolderNotFoundError);
    expect(() => undoSkip(stranger.id, folder.id)).toThrow(FolderNotFoundError);
    expect(stored(folder.id).nextSendAt!.toISOString()).toBe("2026-11-01T00:01:00.000Z");
  });
});
