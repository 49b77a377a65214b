import { eq } from "drizzle-orm";
import { describe, expect, test } from "vitest";
import { createUser } from "#db/factories";
import { emailUnsubscribes, folderRecipientStates, folders, mailboxSuppressions } from "#db/schema";
import { activeEmails, createFolder, folderRow, stateRow } from "#tests/support/recipient-rows";
import { listFolders } from "~/modules/folders/folders.server";
import { db } from "~/platform/db.server";
import { runInRequestContext } from "~/platform/request-context.server";
import { hasOptedOut, markBounced, resubscribe, unsubscribe } from "./opt-outs.server";
import { recipientStates, unsubscribedCounts } from "./recipients.server";

describe("unsubscribing", () => {
  test("from one folder: only that folder stops, nothing global is written", () => {
    const sender = createUser(db);
    const family = createFolder(sender.id, ["mum@example.com", "dad@example.com"]);
    const friends = createFolder(sender.id, ["mum@example.com"], "Friends");
    unsubscribe({ folderId: family.id, email: "Mum@Example.com", reason: "too_frequent" });

    expect(stateRow(family.id, "mum@example.com")).toMatchObject({
      status: "unsubscribed",
      unsubscribeReason: "too_frequent",
    });
    expect(activeEmails(family.id)).toEqual(["dad@example.com"]);
    expect(activeEmails(friends.id)).toEqual(["mum@example.com"]);
    expect(
      db
        .select()
        .from(emailUnsubscribes)
        .where(eq(emailUnsubscribes.email, "mum@example.com"))
        .get(),
    ).toBeUndefined();
    expect(folderRow(family.id).isUnsubscribed).toBe(false);
  });

  test("from everything: every folder of every sender, now and later, skips the address", () => {
    const sender = createUser(db);
    const other = createUser(db);
    const family = createFolder(sender.id, ["gran@example.com", "dad@example.com"]);
    const elsewhere = createFolder(other.id, ["Gran@Example.com", "kid@example.com"], "Other");
    const request = new Request("http://localhost:3000/unsubscribe", {
      method: "POST",
      headers: { "User-Agent": "Mail test" },
    });
    runInRequestContext({ peerAddress: "203.0.113.9" }, () =>
      unsubscribe({
        folderId: family.id,
        email: "gran@example.com",
        reason: "not_interested",
        scope: "everything",
        request,
      }),
    );

    expect(
      db
        .select()
        .from(emailUnsubscribes)
        .where(eq(emailUnsubscribes.email, "gran@example.com"))
        .get(),
    ).toMatchObject({
      unsubscribeReason: "not_interested",
      folderId: family.id,
      userId: sender.id,
      ipAddress: "203.0.113.9",
      userAgent: "Mail test",
    });
    expect(activeEmails(family.id)).toEqual(["dad@example.com"]);
    expect(activeEmails(elsewhere.id)).toEqual(["kid@example.com"]);
    const later = createFolder(other.id, ["gran@example.com"], "Later");
    expect(activeEmails(later.id)).toEqual([]);
    expect(recipientStates(later.id)[0]).toMatchObject({
      status: "unsubscribed",
      scope: "everything",
    });
    expect(recipientStates(elsewhere.id).map((state) => state.status)).toEqual([
      "unsubscribed",
      "active",
    ]);
  });

  test("the last recipient out marks the folder unsubscribed; repeating changes nothing", () => {
    const sender = createUser(db);
    const folder = createFolder(sender.id, ["a@example.com", "b@example.com"]);
    unsubscribe({ folderId: folder.id, email: "a@example.com" });
    expect(folderRow(folder.id).isUnsubscribed).toBe(false);
    unsubscribe({ folderId: folder.id, email: "b@example.com", reason: "other" });
    const after = folderRow(folder.id);
    expect(after.isUnsubscribed).toBe(true);
    expect(after.unsubscribeReason).toBe("other");
    expect(after.unsubscribedAt).toBeInstanceOf(Date);
    const first = stateRow(folder.id, "b@example.com")!;

    unsubscribe({ folderId: folder.id, email: "b@example.com" });
    expect(stateRow(folder.id, "b@example.com")).toMatchObject({
      id: first.id,
      unsubscribedAt: first.unsubscribedAt,
      unsubscribeReason: "other",
    });
    expect(
      db
        .select()
        .from(folderRecipientStates)
        .where(eq(folderRecipientStates.folderId, folder.id))
        .all(),
    ).toHaveLength(2);
    expect(activeEmails(folder.id)).toEqual([]);
    expect(unsubscribedCounts(listFolders(sender.id)).get(folder.id)).toBe(2);
  });

  test("re-subscribing reverses it, also an opt-out from everything, for this folder only", () => {
    const sender = createUser(db);
    const folder = createFolder(sender.id, ["solo@example.com"]);
    const other = createFolder(sender.id, ["solo@example.com"], "Other");
    unsubscribe({ folderId: folder.id, email: "solo@example.com", scope: "everything" });
    expect(folderRow(folder.id).isUnsubscribed).toBe(true);
    expect(folderRow(other.id).isUnsubscribed).toBe(true);

    resubscribe(folder.id, "solo@example.com");
    expect(stateRow(folder.id, "solo@example.com")?.status).toBe("active");
    expect(folderRow(folder.id)).toMatchObject({ isUnsubscribed: false, unsubscribedAt: null });
    expect(activeEmails(folder.id)).toEqual(["solo@example.com"]);
    expect(
      db
        .select()
        .from(emailUnsubscribes)
        .where(eq(emailUnsubscribes.email, "solo@example.com"))
        .get(),
    ).toBeUndefined();
    // Saying yes to one folder does not bring back the others.
    expect(activeEmails(other.id)).toEqual([]);
    expect(folderRow(other.id).isUnsubscribed).toBe(true);
    expect(unsubscribedCounts(listFolders(sender.id))).toEqual(new Map([[other.id, 1]]));
  });

  test("a bounce keeps the recipient out and is recorded on the folder", () => {
    const sender = createUser(db);
    const folder = createFolder(sender.id, ["typo@example.con", "ok@example.com"]);
    markBounced(folder.id, "typo@example.con", "550 No such user");
    markBounced(folder.id, "typo@example.con", "550 No such user");
    expect(activeEmails(folder.id)).toEqual(["ok@example.com"]);
    expect(stateRow(folder.id, "typo@example.con")).toMatchObject({
      status: "bounced",
      bounceCount: 2,
      bounceReason: "550 No such user",
    });
    expect(folderRow(folder.id)).toMatchObject({
      bounceCount: 2,
      bounceStatus: "bounced",
      bounceReason: "550 No such user",
      isUnsubscribed: false,
    });
  });
});

describe("one mailbox, one opt-out", () => {
  test("an opt-out from everything holds for every spelling of the mailbox, today's folders and later ones", () => {
    const elsewhere = createUser(db);
    const listedBefore = createFolder(elsewhere.id, ["AB+news@googlemail.com"], "Before");
    const owner = createUser(db);
    const folder = createFolder(owner.id, ["a.b@gmail.com"]);
    unsubscribe({ folderId: folder.id, email: "a.b@gmail.com", scope: "everything" });

    expect(activeEmails(listedBefore.id)).toEqual([]);
    expect(folderRow(listedBefore.id).isUnsubscribed).toBe(true);
    const later = createFolder(elsewhere.id, [
      "a.b+x@gmail.com",
      "A.B@googlemail.com",
      "ba@gmail.com",
      "a.b@example.com",
    ]);
    expect(activeEmails(later.id)).toEqual(["ba@gmail.com", "a.b@example.com"]);
    expect(hasOptedOut(later.id, "ab+anything@googlemail.com")).toBe(true);
    expect(hasOptedOut(later.id, "ba@gmail.com")).toBe(false);
    expect(recipientStates(later.id).map((state) => [state.email, state.scope])).toEqual([
      ["a.b+x@gmail.com", "everything"],
      ["a.b@googlemail.com", "everything"],
      ["ba@gmail.com", null],
      ["a.b@example.com", null],
    ]);
    expect(unsubscribedCounts(listFolders(elsewhere.id))).toEqual(
      new Map([
        [listedBefore.id, 1],
        [later.id, 2],
      ]),
    );
    // A repeat under another spelling keeps the one opt-out, as first typed.
    unsubscribe({
      folderId: listedBefore.id,
      email: "ab+news@googlemail.com",
      scope: "everything",
    });
    expect(
      db
        .select({ email: emailUnsubscribes.email, mailbox: emailUnsubscribes.mailbox })
        .from(emailUnsubscribes)
        .where(eq(emailUnsubscribes.mailbox, "ab@gmail.com"))
        .all(),
    ).toEqual([{ email: "a.b@gmail.com", mailbox: "ab@gmail.com" }]);
  });

  test("leaving one folder holds for every spelling of the mailbox in it", () => {
    const sender = createUser(db);
    const folder = createFolder(sender.id, ["Kim+family@example.com", "lee@example.com"]);
    unsubscribe({ folderId: folder.id, email: "kim+family@example.com" });
    db.update(folders)
      .set({
        recipients: [
          { name: "Kim", email: "kim@example.com" },
          { name: "Kim again", email: "kim+other@example.com" },
          { name: "Lee", email: "lee@example.com" },
        ],
      })
      .where(eq(folders.id, folder.id))
      .run();
    expect(activeEmails(folder.id)).toEqual(["lee@example.com"]);
    expect(recipientStates(folder.id).map((state) => state.status)).toEqual([
      "unsubscribed",
      "unsubscribed",
      "active",
    ]);
    expect(stateRow(folder.id, "kim+family@example.com")?.mailbox).toBe("kim@example.com");
    // The other sender's folder is not this one.
    const other = createFolder(createUser(db).id, ["kim@example.com"]);
    expect(activeEmails(other.id)).toEqual(["kim@example.com"]);
  });

  test("re-subscribing from the recipient's own link lifts their mailbox's suppression, whatever its reason", () => {
    const sender = createUser(db);
    const folder = createFolder(sender.id, ["Sam.Doe+family@gmail.com"]);
    db.insert(mailboxSuppressions)
      .values([
        { mailbox: "samdoe@gmail.com", email: "samdoe@gmail.com", reason: "complaint" },
        { mailbox: "other@example.com", email: "other@example.com", reason: "hard_bounce" },
      ])
      .run();

    resubscribe(folder.id, "sam.doe+family@gmail.com");

    expect(
      db.select({ mailbox: mailboxSuppressions.mailbox }).from(mailboxSuppressions).all(),
    ).toEqual([{ mailbox: "other@example.com" }]);
  });

  test("re-subscribing from the recipient's own link lifts the opt-out for the mailbox", () => {
    const sender = createUser(db);
    const folder = createFolder(sender.id, ["c.d+news@gmail.com"]);
    const other = createFolder(sender.id, ["cd@googlemail.com"], "Other");
    unsubscribe({ folderId: folder.id, email: "c.d+news@gmail.com", scope: "everything" });
    unsubscribe({ folderId: folder.id, email: "cd@gmail.com" });

    resubscribe(folder.id, "c.d+news@gmail.com");

    expect(activeEmails(folder.id)).toEqual(["c.d+news@gmail.com"]);
    expect(
      db
        .select()
        .from(emailUnsubscribes)
        .where(eq(emailUnsubscribes.mailbox, "cd@gmail.com"))
        .all(),
    ).toEqual([]);
    // Saying yes to one folder does not bring back the others.
    expect(activeEmails(other.id)).toEqual([]);
  });
});
