import { eq } from "drizzle-orm";
import { describe, expect, test } from "vitest";
import { createFolder as createFolderRow, createUser } from "#db/factories";
import { readRecipientChoices } from "#db/restore";
import {
  folderRecipientStates,
  folders,
  mailboxSuppressions,
  resubscribeRefusals,
  resubscribeRequests,
  users,
} from "#db/schema";
import { activeEmails, createFolder, folderRow, stateRow } from "#tests/support/recipient-rows";
import { FolderNotFoundError, listFolders } from "~/modules/folders/folders.server";
import { db } from "~/platform/db.server";
import { env } from "~/platform/env.server";
import { listOutbox, readOutboxMessage } from "~/platform/mailer.server";
import { nextIssueLine } from "./next-issue-line";
import {
  activeRecipients,
  markBounced,
  refuseResubscribeRequests,
  resubscribe,
  unsubscribe,
} from "./opt-outs.server";
import {
  dontAskAgainToken,
  isValidResubscribeToken,
  readDontAskAgainLink,
  readLinkParams,
} from "./recipient-links.server";
import {
  askableAfterBounce,
  nextIssueReach,
  RESUBSCRIBE_REQUESTS_PER_ADDRESS,
  RecipientRuleError,
  recipientStates,
  requestResubscription,
} from "./recipients.server";

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
