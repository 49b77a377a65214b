import { and, eq } from "drizzle-orm";
import { describe, expect, test } from "vitest";
import { createFolder as createFolderRow, createUser } from "#db/factories";
import { readRecipientChoices } from "#db/restore";
import {
  emailUnsubscribes,
  folderRecipientStates,
  folders,
  mailboxSuppressions,
  resubscribeRefusals,
  resubscribeRequests,
  users,
} from "#db/schema";
import { FolderNotFoundError, listFolders } from "~/modules/folders/folders.server";
import { db } from "~/platform/db.server";
import { env } from "~/platform/env.server";
import { listOutbox, readOutboxMessage } from "~/platform/mailer.server";
import { runInRequestContext } from "~/platform/request-context.server";
import { nextIssueLine } from "./next-issue-line";
import {
  dontAskAgainToken,
  isValidResubscribeToken,
  isValidUnsubscribeToken,
  readDontAskAgainLink,
  readLinkParams,
  resubscribeToken,
  resubscribeUrl,
  unsubscribeMailto,
  unsubscribeToken,
  unsubscribeUrl,
} from "./recipient-links.server";
import {
  activeRecipients,
  askableAfterBounce,
  canonicalizeStoredAddresses,
  hasOptedOut,
  markBounced,
  nextIssueReach,
  RESUBSCRIBE_REQUESTS_PER_ADDRESS,
  RecipientRuleError,
  recipientStates,
  refuseResubscribeRequests,
  requestResubscription,
  resubscribe,
  unsubscribe,
  unsubscribedCounts,
} from "./recipients.server";

function createFolder(userId: number, emails: string[], name = "Family") {
  return createFolderRow(db, userId, {
    name,
    recipients: emails.map((email, index) => ({ name: `Person ${index + 1}`, email })),
  });
}

function folderRow(id: number) {
  return db.select().from(folders).where(eq(folders.id, id)).get()!;
}

function stateRow(folderId: number, email: string) {
  return db
    .select()
    .from(folderRecipientStates)
    .where(
      and(eq(folderRecipientStates.folderId, folderId), eq(folderRecipientStates.email, email)),
    )
    .get();
}

function activeEmails(folderId: number) {
  return activeRecipients(folderRow(folderId)).map((recipient) => recipient.email);
}

function flip(token: string) {
  const last = token.at(-1) === "A" ? "B" : "A";
  return `${token.slice(0, -1)}${last}`;
}

describe("signed links", () => {
  test("an unsubscribe token verifies for its folder and address only", () => {
    const token = unsubscribeToken(7, "Mum@Example.com");
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(isValidUnsubscribeToken(7, "mum@example.com", token)).toBe(true);
    expect(isValidUnsubscribeToken(7, "MUM@example.com", token)).toBe(true);
    expect(isValidUnsubscribeToken(8, "mum@example.com", token)).toBe(false);
    expect(isValidUnsubscribeToken(7, "dad@example.com", token)).toBe(false);
    expect(isValidUnsubscribeToken(7, "mum@example.com", flip(token))).toBe(false);
    expect(isValidUnsubscribeToken(7, "mum@example.com", token.slice(1))).toBe(false);
    expect(isValidUnsubscribeToken(7, "mum@example.com", "")).toBe(false);
    expect(isValidUnsubscribeToken(7, "mum@example.com", "forged-token")).toBe(false);
  });

  test("re-subscribe and unsubscribe tokens are not interchangeable", () => {
    const resub = resubscribeToken("mum@example.com", 7);
    expect(isValidResubscribeToken("mum@example.com", 7, resub)).toBe(true);
    expect(isValidUnsubscribeToken(7, "mum@example.com", resub)).toBe(false);
    expect(
      isValidResubscribeToken("mum@example.com", 7, unsubscribeToken(7, "mum@example.com")),
    ).toBe(false);
    expect(isValidResubscribeToken("mum@example.com", 7, flip(resub))).toBe(false);
  });

  test("the URLs carry folder, address and token; the mailto carries folder and token", () => {
    const url = new URL(unsubscribeUrl(7, "Mum@Example.com"));
    expect(url.origin + url.pathname).toBe("http://localhost:3000/unsubscribe");
    const link = readLinkParams(url.searchParams)!;
    expect(link).toEqual({ folderId: 7, email: "mum@example.com", token: expect.any(String) });
    expect(isValidUnsubscribeToken(link.folderId, link.email, link.token)).toBe(true);

    const resub = new URL(resubscribeUrl("mum@example.com", 7));
    expect(resub.pathname).toBe("/resubscribe");
    const resubLink = readLinkParams(resub.searchParams)!;
    expect(isValidResubscribeToken(resubLink.email, resubLink.folderId, resubLink.token)).toBe(
      true,
    );

    expect(unsubscribeMailto(7, "mum@example.com")).toBe(
      `mailto:no-reply@localhost?subject=${encodeURIComponent(`unsubscribe-7-${unsubscribeToken(7, "mum@example.com")}`)}`,
    );
  });

  test("incomplete or malformed links are refused before any token check", () => {
    const params = (query: string) => readLinkParams(new URLSearchParams(query));
    expect(params("folder=7&email=a@b.c")).toBeNull();
    expect(params("email=a@b.c&token=x")).toBeNull();
    expect(params("folder=7&token=x")).toBeNull();
    expect(params("folder=-1&email=a@b.c&token=x")).toBeNull();
    expect(params("folder=1.5&email=a@b.c&token=x")).toBeNull();
    expect(params("folder=7&email=nobody&token=x")).toBeNull();
  });
});

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

async function mailsTo(address: string) {
  const found = [];
  for (const entry of await listOutbox()) {
    if (entry.to.includes(address)) found.push((await readOutboxMessage(entry.id))!);
  }
  return found;
}

describe("asking a recipient back", () => {
  test("sends one e-mail with a signed link, then at most once per 30 days", async () => {
    const sender = createUser(db);
    const folder = createFolder(sender.id, ["back@example.com", "stay@example.com"]);

    await expect(requestResubscription(sender.id, folder.id, "stay@example.com")).rejects.toThrow(
      new RecipientRuleError("stay@example.com has not unsubscribed from this folder."),
    );
    await expect(requestResubscription(sender.id, folder.id, "nobody@example.com")).rejects.toThrow(
      RecipientRuleError,
    );
    const stranger = createUser(db);
    await expect(requestResubscription(stranger.id, folder.id, "back@example.com")).rejects.toThrow(
      FolderNotFoundError,
    );
    expect(await mailsTo("back@example.com")).toHaveLength(0);

    unsubscribe({ folderId: folder.id, email: "back@example.com", reason: "too_frequent" });
    await requestResubscription(sender.id, folder.id, "Back@Example.com");
    const [mail, ...more] = await mailsTo("back@example.com");
    expect(more).toHaveLength(0);
    expect(mail!.subject).toBe('Ada Lovelace would like to keep sharing "Family" with you');
    expect(mail!.text).toContain("nothing changes");
    const link = /http:\/\/localhost:3000\/resubscribe\?[^\s\]]+/.exec(mail!.text ?? "")![0];
    const params = readLinkParams(new URL(link).searchParams)!;
    expect(params).toMatchObject({ folderId: folder.id, email: "back@example.com" });
    expect(isValidResubscribeToken(params.email, params.folderId, params.token)).toBe(true);
    // The request itself changes nothing for the recipient.
    expect(activeEmails(folder.id)).toEqual(["stay@example.com"]);

    await expect(requestResubscription(sender.id, folder.id, "back@example.com")).rejects.toThrow(
      /once every 30 days/,
    );
    expect(await mailsTo("back@example.com")).toHaveLength(1);

    db.update(resubscribeRequests)
      .set({ requestedAt: new Date(Date.now() - 31 * 24 * 60 * 60 * 1000) })
      .where(eq(resubscribeRequests.senderUserId, sender.id))
      .run();
    await requestResubscription(sender.id, folder.id, "back@example.com");
    expect(await mailsTo("back@example.com")).toHaveLength(2);

    resubscribe(params.folderId, params.email);
    expect(activeEmails(folder.id)).toEqual(["back@example.com", "stay@example.com"]);
  });

  test("a recipient who left everything can be asked back for this folder", async () => {
    const sender = createUser(db);
    const folder = createFolder(sender.id, ["global@example.com"]);
    const other = createFolder(createUser(db).id, ["global@example.com"], "Other");
    unsubscribe({ folderId: other.id, email: "global@example.com", scope: "everything" });
    // No row of this folder's own was needed for it to count as unsubscribed.
    db.delete(folderRecipientStates).where(eq(folderRecipientStates.folderId, folder.id)).run();
    expect(recipientStates(folder.id)[0]?.status).toBe("unsubscribed");
    await requestResubscription(sender.id, folder.id, "global@example.com");
    expect(stateRow(folder.id, "global@example.com")?.resubscribeRequestedAt).toBeInstanceOf(Date);
    await expect(requestResubscription(sender.id, folder.id, "global@example.com")).rejects.toThrow(
      /once every 30 days/,
    );
  });
});

describe("what a sender sees of a recipient who left", () => {
  test("their own folder: that and when, never why; another sender's: only no mail", () => {
    const sender = createUser(db);
    const other = createUser(db);
    const family = createFolder(sender.id, ["quiet@example.com"]);
    const elsewhere = createFolder(other.id, ["quiet@example.com"], "Elsewhere");
    unsubscribe({
      folderId: family.id,
      email: "quiet@example.com",
      reason: "not_interested",
      scope: "everything",
    });
    const own = recipientStates(family.id)[0]!;
    expect(own).toMatchObject({ status: "unsubscribed", scope: "everything" });
    expect(own.unsubscribedAt).toBeInstanceOf(Date);
    const theirs = recipientStates(elsewhere.id)[0]!;
    expect(theirs).toMatchObject({ status: "unsubscribed", scope: "everything" });
    expect(theirs.unsubscribedAt).toBeNull();
    for (const state of [own, theirs]) {
      expect(JSON.stringify(state)).not.toMatch(/not_interested|unsubscribeReason/);
    }
  });

  test("other senders' folder rows get neither the date nor the reason, also after re-subscribing", () => {
    const family = createFolder(createUser(db).id, ["private@example.com"]);
    const elsewhere = createFolder(createUser(db).id, ["private@example.com"], "Elsewhere");
    unsubscribe({
      folderId: family.id,
      email: "private@example.com",
      reason: "too_frequent",
      scope: "everything",
    });
    expect(stateRow(elsewhere.id, "private@example.com")).toMatchObject({
      status: "unsubscribed",
      unsubscribedAt: null,
      unsubscribeReason: null,
    });
    expect(folderRow(elsewhere.id).unsubscribeReason).not.toBe("too_frequent");

    resubscribe(family.id, "private@example.com");
    expect(stateRow(elsewhere.id, "private@example.com")).toMatchObject({
      status: "unsubscribed",
      unsubscribedAt: null,
      unsubscribeReason: null,
    });
    expect(recipientStates(elsewhere.id)[0]).toMatchObject({
      status: "unsubscribed",
      scope: "folder",
      unsubscribedAt: null,
    });
    expect(activeEmails(family.id)).toEqual(["private@example.com"]);
    expect(activeEmails(elsewhere.id)).toEqual([]);
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

  test("don't ask me again and the request limits count per mailbox", async () => {
    const owner = createUser(db);
    unsubscribe({
      folderId: createFolder(owner.id, ["e.f@gmail.com"]).id,
      email: "e.f@gmail.com",
      scope: "everything",
    });
    refuseResubscribeRequests("ef+x@googlemail.com");
    const sender = createUser(db);
    const folder = createFolder(sender.id, ["E.F+news@gmail.com"]);
    await expect(requestResubscription(sender.id, folder.id, "e.f+news@gmail.com")).rejects.toThrow(
      "asked not to be asked again",
    );

    unsubscribe({
      folderId: createFolder(owner.id, ["gh@example.com"]).id,
      email: "gh@example.com",
      scope: "everything",
    });
    const asker = createUser(db);
    const first = createFolder(asker.id, ["gh+one@example.com"]);
    await requestResubscription(asker.id, first.id, "gh+one@example.com");
    const second = createFolder(asker.id, ["GH+two@example.com"], "Second");
    await expect(requestResubscription(asker.id, second.id, "gh+two@example.com")).rejects.toThrow(
      "You can ask once every 30 days",
    );
  });
});

describe("addresses stored before canonical forms", () => {
  test("non-ASCII domains are rewritten at start, and the opt-out wins a merge", () => {
    const sender = createUser(db);
    const folder = createFolder(sender.id, ["Anna@BÜCHER.example"]);
    db.insert(folderRecipientStates)
      .values([
        { folderId: folder.id, email: "anna@bücher.example", status: "unsubscribed" },
        { folderId: folder.id, email: "anna@xn--bcher-kva.example", status: "active" },
      ])
      .run();
    db.insert(emailUnsubscribes).values({ email: "zoë@straße.example" }).run();

    canonicalizeStoredAddresses();

    expect(folderRow(folder.id).recipients).toEqual([
      { name: "Person 1", email: "anna@xn--bcher-kva.example" },
    ]);
    expect(
      db
        .select({ email: folderRecipientStates.email, status: folderRecipientStates.status })
        .from(folderRecipientStates)
        .where(eq(folderRecipientStates.folderId, folder.id))
        .all(),
    ).toEqual([{ email: "anna@xn--bcher-kva.example", status: "unsubscribed" }]);
    expect(
      db
        .select()
        .from(emailUnsubscribes)
        .where(eq(emailUnsubscribes.email, "zoë@xn--strae-oqa.example"))
        .get(),
    ).toBeDefined();
    expect(activeRecipients(folderRow(folder.id))).toEqual([]);
  });
});

describe("rows written without a mailbox", () => {
  test("are keyed at start, and the opt-out wins where two spellings of one mailbox meet", () => {
    const sender = createUser(db);
    const folder = createFolder(sender.id, ["ij@gmail.com"]);
    db.insert(folderRecipientStates)
      .values([
        { folderId: folder.id, email: "ij@gmail.com", status: "active" },
        { folderId: folder.id, email: "i.j+x@googlemail.com", status: "unsubscribed" },
      ])
      .run();
    db.insert(emailUnsubscribes).values({ email: "kl+x@example.com" }).run();

    canonicalizeStoredAddresses();

    expect(
      db
        .select({ email: folderRecipientStates.email, mailbox: folderRecipientStates.mailbox })
        .from(folderRecipientStates)
        .where(eq(folderRecipientStates.folderId, folder.id))
        .all(),
    ).toEqual([{ email: "i.j+x@googlemail.com", mailbox: "ij@gmail.com" }]);
    expect(activeEmails(folder.id)).toEqual([]);
    expect(hasOptedOut(folder.id, "kl@example.com")).toBe(true);
  });
});

describe("re-subscribe requests cannot be abused", () => {
  function optedOut(email: string) {
    const owner = createUser(db);
    const folder = createFolder(owner.id, [email]);
    unsubscribe({ folderId: folder.id, email, scope: "everything" });
  }

  test("an unverified sender may not ask", async () => {
    optedOut("unverified-target@example.com");
    const sender = createUser(db);
    db.update(users).set({ emailVerified: false }).where(eq(users.id, sender.id)).run();
    const folder = createFolder(sender.id, ["unverified-target@example.com"]);
    await expect(
      requestResubscription(sender.id, folder.id, "unverified-target@example.com"),
    ).rejects.toThrow("Please confirm your email address");
    expect(await mailsTo("unverified-target@example.com")).toHaveLength(0);
  });

  test("recreating the folder does not reset the sender's 30 days", async () => {
    optedOut("recreate@example.com");
    const sender = createUser(db);
    const first = createFolder(sender.id, ["recreate@example.com"]);
    await requestResubscription(sender.id, first.id, "recreate@example.com");
    db.delete(folders).where(eq(folders.id, first.id)).run();
    const second = createFolder(sender.id, ["recreate@example.com"]);
    await expect(
      requestResubscription(sender.id, second.id, "recreate@example.com"),
    ).rejects.toThrow("You can ask once every 30 days");
    expect(await mailsTo("recreate@example.com")).toHaveLength(1);
  });

  test("one address gets a capped number of requests from all senders together", async () => {
    optedOut("popular@example.com");
    for (let index = 0; index <= RESUBSCRIBE_REQUESTS_PER_ADDRESS; index += 1) {
      const sender = createUser(db);
      const folder = createFolder(sender.id, ["popular@example.com"]);
      const asking = requestResubscription(sender.id, folder.id, "popular@example.com");
      if (index < RESUBSCRIBE_REQUESTS_PER_ADDRESS) await asking;
      else await expect(asking).rejects.toThrow(RecipientRuleError);
    }
    expect(await mailsTo("popular@example.com")).toHaveLength(RESUBSCRIBE_REQUESTS_PER_ADDRESS);
  });

  test("an address that said don't ask me again is never asked", async () => {
    optedOut("never@example.com");
    db.insert(resubscribeRefusals).values({ email: "never@example.com" }).run();
    const sender = createUser(db);
    const folder = createFolder(sender.id, ["never@example.com"]);
    await expect(requestResubscription(sender.id, folder.id, "never@example.com")).rejects.toThrow(
      "asked not to be asked again",
    );
    expect(await mailsTo("never@example.com")).toHaveLength(0);
  });

  test("the request names who asks and its Don't ask me again link stops every sender", async () => {
    optedOut("enough@example.com");
    const sender = createUser(db);
    const folder = createFolder(sender.id, ["enough@example.com"]);
    await requestResubscription(sender.id, folder.id, "enough@example.com");
    const [mail] = await mailsTo("enough@example.com");
    expect(mail!.text).toContain(`Ada Lovelace (${sender.email})`);
    const link = /http:\/\/localhost:3000\/dont-ask-again\?[^\s\]]+/.exec(mail!.text ?? "")![0];
    const refusal = readDontAskAgainLink(new URL(link).searchParams);
    expect(refusal).toEqual({
      email: "enough@example.com",
      token: dontAskAgainToken("enough@example.com"),
    });

    refuseResubscribeRequests(refusal!.email);
    refuseResubscribeRequests(refusal!.email);
    // Journalled for a restore from an older backup (scripts/db-restore.ts reapplies it).
    expect(
      readRecipientChoices(env.BACKUP_DIR).filter(
        (choice) => choice.choice === "refuse-requests" && choice.email === "enough@example.com",
      ),
    ).toHaveLength(2);
    for (const asker of [sender, createUser(db)]) {
      const asked = createFolder(asker.id, ["Enough@Example.com"]);
      await expect(requestResubscription(asker.id, asked.id, "enough@example.com")).rejects.toThrow(
        "asked not to be asked again",
      );
    }
    expect(await mailsTo("enough@example.com")).toHaveLength(1);
  });

  test("a Don't ask me again link is signed for its address and purpose", () => {
    const token = dontAskAgainToken("Someone@Example.com");
    const read = (email: string, given: string) =>
      readDontAskAgainLink(new URLSearchParams({ email, token: given }));
    expect(read("someone@example.com", token)).not.toBeNull();
    expect(read("other@example.com", token)).toBeNull();
    expect(read("someone@example.com", flip(token))).toBeNull();
    expect(read("someone@example.com", resubscribeToken("someone@example.com", 1))).toBeNull();
  });
});

describe("who will get the next issue", () => {
  test("counts the send's own way: a bounce, a complaint and an opt-out each leave one out", () => {
    const ada = createUser(db);
    const [mum, dad, gran, sam] = ["mum", "dad", "gran", "sam"].map(
      (name) => `${name}-reach@example.net`,
    );
    const family = createFolderRow(db, ada.id, {
      recipients: [
        { name: "Mum", email: mum! },
        { name: "Dad", email: dad! },
        { name: "Gran", email: gran! },
      ],
    });
    const books = createFolderRow(db, ada.id, {
      name: "Books",
      recipients: [
        { name: "Sam", email: sam! },
        { name: "Dad", email: dad! },
      ],
    });
    const untouched = () => nextIssueReach(listFolders(ada.id));
    expect(nextIssueLine(untouched().get(family.id)!)).toBe("3 recipients");

    markBounced(family.id, mum!, "550 no such user");
    expect(nextIssueLine(nextIssueReach(listFolders(ada.id)).get(family.id)!)).toBe(
      "2 of 3 will get it: Mum's address bounced",
    );
    db.insert(mailboxSuppressions)
      .values({ mailbox: gran!, email: gran!, reason: "complaint" })
      .run();
    unsubscribe({ folderId: books.id, email: sam!, scope: "everything" });
    const reach = nextIssueReach(listFolders(ada.id));
    expect(nextIssueLine(reach.get(family.id)!)).toBe(
      "1 of 3 will get it: Mum's address bounced, Gran reported spam",
    );
    expect(nextIssueLine(reach.get(books.id)!)).toBe("1 of 2 will get it: Sam unsubscribed");
    // The send's own check agrees on who is left.
    const folder = listFolders(ada.id).find((entry) => entry.id === family.id)!;
    expect(activeRecipients(folder).map((recipient) => recipient.email)).toEqual([dad]);
  });
});

describe("one way back after a bounce", () => {
  test("a bounced recipient may be asked once; only their own yes starts mail again", async () => {
    const sender = createUser(db, { firstName: "Ada", lastName: null });
    const folder = createFolder(sender.id, ["mum-bounced@example.com", "dad-fine@example.com"]);
    markBounced(folder.id, "mum-bounced@example.com", "552 mailbox full");
    expect([...askableAfterBounce(folder.id)]).toEqual(["mum-bounced@example.com"]);

    await requestResubscription(sender.id, folder.id, "mum-bounced@example.com", "bounce");
    const [mail, ...more] = await mailsTo("mum-bounced@example.com");
    expect(more).toHaveLength(0);
    expect(mail!.subject).toBe('Would you like to keep getting "Family"?');
    const link = /http:\/\/localhost:3000\/resubscribe\?[^"\s]+/.exec(String(mail!.html))![0];
    const params = readLinkParams(new URL(link.replaceAll("&amp;", "&")).searchParams)!;
    // Asking changes nothing: still bounced, still left out of the next issue.
    const listed = () => listFolders(sender.id).find((entry) => entry.id === folder.id)!;
    expect(activeRecipients(listed()).map((entry) => entry.email)).toEqual([
      "dad-fine@example.com",
    ]);
    await expect(
      requestResubscription(sender.id, folder.id, "mum-bounced@example.com", "bounce"),
    ).rejects.toThrow(/You already asked mum-bounced@example.com/);

    resubscribe(params.folderId, params.email);
    expect(activeRecipients(listed()).map((entry) => entry.email)).toEqual([
      "mum-bounced@example.com",
      "dad-fine@example.com",
    ]);
  });

  test("never after a complaint, nor for someone who did not bounce", async () => {
    const sender = createUser(db);
    const folder = createFolder(sender.id, ["gran-spam@example.com", "sam-fine@example.com"]);
    db.insert(mailboxSuppressions)
      .values({
        mailbox: "gran-spam@example.com",
        email: "gran-spam@example.com",
        reason: "complaint",
      })
      .run();
    expect(askableAfterBounce(folder.id).size).toBe(0);
    await expect(
      requestResubscription(sender.id, folder.id, "gran-spam@example.com", "bounce"),
    ).rejects.toThrow(/never asks again after a complaint/);
    await expect(
      requestResubscription(sender.id, folder.id, "sam-fine@example.com", "bounce"),
    ).rejects.toThrow("Mail to sam-fine@example.com has not bounced.");
    expect(await mailsTo("gran-spam@example.com")).toHaveLength(0);
  });
});
