import fs from "node:fs";
import path from "node:path";
import { eq } from "drizzle-orm";
import { expect, test } from "vitest";
import { createFolder, createUser } from "#db/factories";
import { contentItems, securityEvents, sessions, undoLinkUses, users } from "#db/schema";
import { ARCHIVE_FILE_RETENTION_DAYS } from "~/modules/plans/limits";
import { db } from "~/platform/db.server";
import { env } from "~/platform/env.server";
import { storage } from "~/platform/storage.server";
import {
  pruneExpiredRecords,
  SECURITY_EVENT_RETENTION_DAYS,
  sweepOrphanFiles,
} from "./maintenance.server";

async function store(text: string) {
  const { key } = await storage.put(
    (async function* () {
      yield new TextEncoder().encode(text);
    })(),
  );
  return key;
}

function age(key: string, hours: number) {
  const file = path.join(env.STORAGE_DIR, key.slice(0, 2), key);
  const then = new Date(Date.now() - hours * 3600_000);
  fs.utimesSync(file, then, then);
}

test("removes old files no item refers to and keeps the rest", async () => {
  const user = createUser(db, { email: "sweep@example.com" });
  const folder = createFolder(db, user.id, { name: "F", recipients: [] });
  const used = await store("used");
  const thumb = await store("thumb");
  const orphan = await store("orphan");
  const young = await store("young");
  db.insert(contentItems)
    .values({
      folderId: folder.id,
      type: "photo",
      title: "p",
      filePaths: [used],
      thumbnailPaths: [thumb],
      fileSizes: [4],
    })
    .run();
  for (const key of [used, thumb, orphan]) age(key, 2);

  expect(await sweepOrphanFiles()).toBe(1);
  expect(await storage.stat(orphan)).toBeNull();
  for (const key of [used, thumb, young]) expect(await storage.stat(key)).not.toBeNull();
});

test("keeps a sent item's files for the archive's retention, then removes them", async () => {
  const user = createUser(db, { email: "sweep-sent@example.com" });
  const folder = createFolder(db, user.id, { name: "F", recipients: [] });
  const recent = await store("recent");
  const old = await store("old");
  const day = 86_400_000;
  db.insert(contentItems)
    .values([
      {
        folderId: folder.id,
        type: "file",
        title: "recent",
        filePaths: [recent],
        thumbnailPaths: [""],
        fileSizes: [6],
        sentAt: new Date(Date.now() - (ARCHIVE_FILE_RETENTION_DAYS - 1) * day),
      },
      {
        folderId: folder.id,
        type: "file",
        title: "old",
        filePaths: [old],
        thumbnailPaths: [""],
        fileSizes: [3],
        sentAt: new Date(Date.now() - (ARCHIVE_FILE_RETENTION_DAYS + 1) * day),
      },
    ])
    .run();
  age(recent, 2);
  age(old, 2);

  expect(await sweepOrphanFiles()).toBe(1);
  expect(await storage.stat(recent)).not.toBeNull();
  expect(await storage.stat(old)).toBeNull();
});

test("prunes old security events, expired sessions and expired e-mailed tokens and undo links", () => {
  const now = new Date();
  const days = (n: number) => new Date(now.getTime() - n * 86_400_000);
  const user = createUser(db, {
    email: "prune@example.com",
    passwordResetToken: "old-reset",
    passwordResetExpiresAt: days(1),
    emailVerificationToken: "old-verify",
    emailVerificationExpiresAt: days(1),
  });
  const fresh = createUser(db, {
    email: "prune-fresh@example.com",
    passwordResetToken: "live-reset",
    passwordResetExpiresAt: days(-1),
  });
  db.insert(securityEvents)
    .values([
      { eventType: "failed_login", createdAt: days(SECURITY_EVENT_RETENTION_DAYS + 1) },
      { eventType: "failed_login", createdAt: days(SECURITY_EVENT_RETENTION_DAYS - 1) },
    ])
    .run();
  db.insert(sessions)
    .values([
      { sid: "expired-session", userId: user.id, expire: days(1) },
      { sid: "live-session", userId: user.id, expire: days(-1) },
    ])
    .run();
  db.insert(undoLinkUses)
    .values([
      { linkHash: "expired-link", userId: user.id, usedAt: days(8), expiresAt: days(1) },
      { linkHash: "live-link", userId: user.id, usedAt: days(1), expiresAt: days(-1) },
    ])
    .run();

  expect(pruneExpiredRecords(now)).toEqual({ securityEventsRemoved: 1, sessionsRemoved: 1 });
  expect(db.select().from(securityEvents).all()).toHaveLength(1);
  expect(db.select({ sid: sessions.sid }).from(sessions).all()).toEqual([{ sid: "live-session" }]);
  expect(db.select({ linkHash: undoLinkUses.linkHash }).from(undoLinkUses).all()).toEqual([
    { linkHash: "live-link" },
  ]);
  const pruned = db.select().from(users).where(eq(users.id, user.id)).get()!;
  expect(pruned.passwordResetToken).toBeNull();
  expect(pruned.emailVerificationToken).toBeNull();
  const kept = db.select().from(users).where(eq(users.id, fresh.id)).get()!;
  expect(kept.passwordResetToken).toBe("live-reset");
});
