import { and, eq } from "drizzle-orm";
import { describe, expect, test } from "vitest";
import { db } from "#db/client.server";
import { emailUnsubscribes, folderRecipientStates, folders, users } from "#db/schema";
import { runInRequestContext } from "../../server/request-context";
import { FolderNotFoundError } from "./folders.server";
import { listOutbox, readOutboxMessage } from "./mailer.server";
import {
  isValidResubscribeToken,
  isValidUnsubscribeToken,
  readLinkParams,
  resubscribeToken,
  resubscribeUrl,
  unsubscribeMailto,
  unsubscribeToken,
  unsubscribeUrl,
} from "./recipient-links.server";
import {
  activeRecipients,
  markBounced,
  RecipientRuleError,
  recipientStates,
  requestResubscription,
  resubscribe,
  unsubscribe,
  unsubscribedCounts,
} from "./recipients.server";

let counter = 0;

function createUser() {
  counter += 1;
  return db
    .insert(users)
    .values({ email: `sender${counter}@example.com`, firstName: "Ada", lastName: "Lovelace" })
    .returning()
    .get();
}

function createFolder(userId: number, emails: string[], name = "Family") {
  return db
    .insert(folders)
    .values({
      userId,
      name,
      recipients: emails.map((email, index) => ({ name: `Person ${index + 1}`, email })),
    })
    .returning()
    .get();
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
    const sender = createUser();
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
    const sender = createUser();
    const other = createUser();
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
    const sender = createUser();
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
    expect(unsubscribedCounts(sender.id).get(folder.id)).toBe(2);
  });

  test("re-subscribing reverses it, also an opt-out from everything, for this folder only", () => {
    const sender = createUser();
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
    expect(unsubscribedCounts(sender.id)).toEqual(new Map([[other.id, 1]]));
  });

  test("a bounce keeps the recipient out and is recorded on the folder", () => {
    const sender = createUser();
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

describe("asking a recipient back", () => {
  async function mailsTo(address: string) {
    const found = [];
    for (const entry of await listOutbox()) {
      if (entry.to.includes(address)) found.push((await readOutboxMessage(entry.id))!);
    }
    return found;
  }

  test("sends one e-mail with a signed link, then at most once per 30 days", async () => {
    const sender = createUser();
    const folder = createFolder(sender.id, ["back@example.com", "stay@example.com"]);

    await expect(requestResubscription(sender.id, folder.id, "stay@example.com")).rejects.toThrow(
      new RecipientRuleError("stay@example.com has not unsubscribed from this folder."),
    );
    await expect(requestResubscription(sender.id, folder.id, "nobody@example.com")).rejects.toThrow(
      RecipientRuleError,
    );
    const stranger = createUser();
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

    db.update(folderRecipientStates)
      .set({ resubscribeRequestedAt: new Date(Date.now() - 31 * 24 * 60 * 60 * 1000) })
      .where(eq(folderRecipientStates.folderId, folder.id))
      .run();
    await requestResubscription(sender.id, folder.id, "back@example.com");
    expect(await mailsTo("back@example.com")).toHaveLength(2);

    resubscribe(params.folderId, params.email);
    expect(activeEmails(folder.id)).toEqual(["back@example.com", "stay@example.com"]);
  });

  test("a recipient who left everything can be asked back for this folder", async () => {
    const sender = createUser();
    const folder = createFolder(sender.id, ["global@example.com"]);
    const other = createFolder(createUser().id, ["global@example.com"], "Other");
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
