import { afterEach, describe, expect, test, vi } from "vitest";
import { createFolder, createUser } from "#db/factories";
import { securityEvents } from "#db/schema";

const { db } = await import("~/platform/db.server");
const { refusedMail } = await import("./refused-mail.server");

function refused(userId: number | null, folderId: number | null, reason: string, at = new Date()) {
  db.insert(securityEvents)
    .values({
      eventType: "inbound_mail_refused",
      userId,
      details: { reason, folderId, via: "smtp" },
      createdAt: at,
    })
    .run();
}

afterEach(() => {
  vi.useRealTimers();
});

describe("mail a folder's address turned away", () => {
  test("none: nothing to say", () => {
    const user = createUser(db);
    const folder = createFolder(db, user.id);
    expect(refusedMail(user, folder.id)).toBeNull();
  });

  test("counted by reason, in plain words, most first", () => {
    const user = createUser(db, { email: "ada@example.com" });
    const folder = createFolder(db, user.id);
    refused(user.id, folder.id, "not from the folder owner's verified address");
    refused(user.id, folder.id, "not from the folder owner's verified address");
    refused(user.id, folder.id, "not authentic: dmarc=fail");
    refused(user.id, folder.id, "too many messages to this address");
    refused(user.id, folder.id, "malformed message");
    expect(refusedMail(user, folder.id)).toEqual({
      total: 5,
      reasons: [
        "2 were sent from an address other than ada@example.com",
        "1 was not shown by its mail service to come from ada@example.com",
        "1 was over 30 in an hour",
        "1 was not readable as an e-mail",
      ],
    });
  });

  test("only this folder's, only its owner's, only the last 7 days", () => {
    const user = createUser(db);
    const folder = createFolder(db, user.id);
    const other = createFolder(db, user.id);
    const stranger = createUser(db);
    const eightDaysAgo = new Date(Date.now() - 8 * 24 * 60 * 60 * 1000);
    refused(user.id, other.id, "malformed message");
    refused(stranger.id, folder.id, "malformed message");
    refused(null, folder.id, "malformed message");
    refused(user.id, folder.id, "malformed message", eightDaysAgo);
    expect(refusedMail(user, folder.id)).toBeNull();
    refused(user.id, folder.id, "too large to read here");
    expect(refusedMail(user, folder.id)).toEqual({
      total: 1,
      reasons: ["1 was too large to read"],
    });
  });
});
