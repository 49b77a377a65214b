import { parseWithZod } from "@conform-to/zod/v4";
import { beforeAll, describe, expect, test } from "vitest";
import { createFolder, createItem, createUser } from "#db/factories";
import { startSmtpSink } from "../support/integration";

/**
 * A hostile sender tries to reach an address that opted out of everything by
 * spelling it differently. Whatever spelling the form lets through, and even
 * spellings written straight into the database past the form, Send Now must
 * deliver nothing to it: counted at a real SMTP server.
 */
const sink = await startSmtpSink();
const app = await loadApp();

async function loadApp() {
  const [{ db }, schema, sending, optOuts, validation, drizzle] = await Promise.all([
    import("~/platform/db.server"),
    import("#db/schema"),
    import("~/modules/sending/sending.server"),
    import("~/modules/recipients/opt-outs.server"),
    import("~/modules/folders/folder-validation"),
    import("drizzle-orm"),
  ]);
  return { db, schema, sending, optOuts, validation, drizzle };
}

function createFolderWithItem(userId: number, recipients: { name: string; email: string }[]) {
  const folder = createFolder(app.db, userId, {
    name: `Folder ${recipients[0]?.email}`,
    recipients,
  });
  createItem(app.db, folder.id);
  return folder;
}

function optOutOfEverything(email: string) {
  const owner = createUser(app.db);
  const folder = createFolderWithItem(owner.id, [{ name: "Victim", email }]);
  app.optOuts.unsubscribe({ folderId: folder.id, email, scope: "everything" });
}

const SPELLINGS = [
  "victim@example.test",
  "VICTIM@EXAMPLE.TEST",
  "Victim@Example.Test",
  "  victim@example.test  ",
  "victim@ｅxample.test",
  "<victim@example.test>",
  "Victim <victim@example.test>",
  '"Victim" <VICTIM@example.test>',
  "victim@example.test,",
  "victim@example.test, friend@example.test",
  "victim@example.test;",
  "victim@example.test (work)",
  '"victim"@example.test',
  "victim@EXAMPLE.test\t",
  " <Victim@Example.Test> ",
];
const IDN_SPELLINGS = ["victim@bücher.test", "VICTIM@BÜCHER.TEST", "victim@xn--bcher-kva.test"];

describe("an address that opted out of everything", () => {
  beforeAll(() => {
    optOutOfEverything("victim@example.test");
    optOutOfEverything("victim@bücher.test");
  });

  test("is mailed under none of its spellings the folder form accepts", async () => {
    let accepted = 0;
    for (const spelling of [...SPELLINGS, ...IDN_SPELLINGS]) {
      // A throwaway account per try: Send Now reaches a mailbox 3 times a day per sender.
      const sender = createUser(app.db);
      const formData = new FormData();
      formData.set("name", "Sneaky");
      formData.set("recipients[0].name", "Victim");
      formData.set("recipients[0].email", spelling);
      formData.set("recipients[1].name", "Friend");
      formData.set("recipients[1].email", "friend@example.test");
      const submission = parseWithZod(formData, { schema: app.validation.FolderSchema });
      if (submission.status !== "success") continue;
      accepted += 1;
      const folder = createFolderWithItem(sender.id, submission.value.recipients);
      await app.sending.sendNow(sender.id, folder.id);
    }
    expect(accepted).toBeGreaterThanOrEqual(6);
    expect(sink.to("friend@example.test")).toHaveLength(accepted);
    expect(sink.to("victim@example.test")).toHaveLength(0);
    expect(sink.to("victim@xn--bcher-kva.test")).toHaveLength(0);
  });

  test("is mailed under none of its spellings even when they reach the database unchecked", async () => {
    const before = sink.to("friend@example.test").length;
    for (const spelling of [...SPELLINGS, ...IDN_SPELLINGS]) {
      const sender = createUser(app.db);
      const folder = createFolderWithItem(sender.id, [
        { name: "Victim", email: spelling },
        { name: "Friend", email: "friend@example.test" },
      ]);
      await app.sending.sendNow(sender.id, folder.id);
    }
    expect(sink.to("friend@example.test").length - before).toBe(
      SPELLINGS.length + IDN_SPELLINGS.length,
    );
    expect(sink.to("victim@example.test")).toHaveLength(0);
    expect(sink.to("victim@xn--bcher-kva.test")).toHaveLength(0);
  });
});

test("an opt-out made after the send was opened still holds at the ledger", async () => {
  const sender = createUser(app.db);
  const folder = createFolderWithItem(sender.id, [
    { name: "Late", email: "late@example.test" },
    { name: "Friend", email: "friend2@example.test" },
  ]);
  const ledger = app.sending.openLedger(folder.id, "test:late", "send_now", new Date());
  expect(ledger).not.toBeNull();
  app.optOuts.unsubscribe({ folderId: folder.id, email: "LATE@example.test" });
  await app.sending.deliver(ledger!.id);
  expect(sink.to("friend2@example.test")).toHaveLength(1);
  expect(sink.to("late@example.test")).toHaveLength(0);
  const rows = app.db.select().from(app.schema.sendLedgerRecipients).all();
  expect(rows.find((row) => row.email === "late@example.test")?.status).toBe("skipped");
});

/** Messages to any address the pattern matches (envelopes are lower-case). */
function mailTo(pattern: RegExp) {
  return sink.messages.filter((message) => message.envelopeTo.some((to) => pattern.test(to)));
}

/**
 * The same mailbox written another way: a +tag on any domain, Gmail's dots and
 * googlemail.com. The folder form accepts all of these (they are real, distinct
 * spellings), so the opt-out must match on the mailbox they deliver to.
 */
describe("a mailbox that opted out, written another way", () => {
  const MAILBOX_SPELLINGS = [
    "ab@gmail.com",
    "a.b@gmail.com",
    "A.b+news@googlemail.com",
    "a.B+x.y@gmail.com",
    "AB@GoogleMail.com",
  ];
  const TAGGED_SPELLINGS = ["kim+family@example.test", "Kim+news@Example.test", "KIM@example.test"];

  beforeAll(() => {
    optOutOfEverything("a.b@gmail.com");
    optOutOfEverything("kim@example.test");
  });

  test("gets nothing from any folder after unsubscribing from everything", async () => {
    let accepted = 0;
    for (const spelling of [...MAILBOX_SPELLINGS, ...TAGGED_SPELLINGS]) {
      const sender = createUser(app.db);
      const formData = new FormData();
      formData.set("name", "Sneaky");
      formData.set("recipients[0].name", "Victim");
      formData.set("recipients[0].email", spelling);
      formData.set("recipients[1].name", "Friend");
      formData.set("recipients[1].email", "mailbox-friend@example.test");
      const submission = parseWithZod(formData, { schema: app.validation.FolderSchema });
      expect(submission.status).toBe("success");
      if (submission.status !== "success") continue;
      accepted += 1;
      const folder = createFolderWithItem(sender.id, submission.value.recipients);
      await app.sending.sendNow(sender.id, folder.id);
    }
    expect(sink.to("mailbox-friend@example.test")).toHaveLength(accepted);
    expect(mailTo(/^(a\.?b(\+.*)?@g(oogle)?mail\.com|kim(\+.*)?@example\.test)$/)).toHaveLength(0);
  });

  test("gets nothing from a folder it left under another spelling; a different mailbox still does", async () => {
    const sender = createUser(app.db);
    const folder = createFolderWithItem(sender.id, [
      { name: "Lee", email: "lee+family@example.test" },
      { name: "Ba", email: "ba@gmail.com" },
      { name: "Lee at work", email: "lee@example.org" },
    ]);
    app.optOuts.unsubscribe({ folderId: folder.id, email: "lee+family@example.test" });
    app.db
      .update(app.schema.folders)
      .set({
        recipients: [
          { name: "Lee", email: "lee@example.test" },
          { name: "Lee again", email: "Lee+other@example.test" },
          { name: "Ba", email: "ba@gmail.com" },
          { name: "Lee at work", email: "lee@example.org" },
        ],
      })
      .where(app.drizzle.eq(app.schema.folders.id, folder.id))
      .run();
    await app.sending.sendNow(sender.id, folder.id);
    expect(mailTo(/^lee(\+.*)?@example\.test$/)).toHaveLength(0);
    expect(sink.to("ba@gmail.com")).toHaveLength(1);
    expect(sink.to("lee@example.org")).toHaveLength(1);
  });
});
