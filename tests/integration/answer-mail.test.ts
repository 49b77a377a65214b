import { DomUtils, parseDocument } from "htmlparser2";
import { describe, expect, test } from "vitest";
import { createFolder, createItem, createUser } from "#db/factories";
import {
  launchBuiltServer,
  startSmtpSink,
  thisFilesDataDir,
  waitUntil,
} from "../support/integration";

/**
 * Issue 37's mail to the sender over a real SMTP server on loopback, read
 * back with mailparser: a newsletter really sent to two recipients, each
 * answers it through their own signed links, and the day's gathering reaches
 * the sender once; the production server's own job, killed at its named
 * points (THOUGHTFULLY_FAULT_POINT), sends each e-mail once, or again once
 * with the same Message-ID when it died after the SMTP server's "250". Needs
 * `npm run build` first. The app's modules read SMTP_URL when first imported, so
 * they are imported after the sink starts.
 */
const sink = await startSmtpSink();
const [{ db }, schema, drizzle, sending, answers, answerMail, links] = await Promise.all([
  import("~/platform/db.server"),
  import("#db/schema"),
  import("drizzle-orm"),
  import("~/modules/sending/sending.server"),
  import("~/modules/answers/answers.server"),
  import("~/modules/answers/answer-mail.server"),
  import("~/modules/recipients/recipient-links.server"),
]);

describe("the daily gathering e-mail", () => {
  test("carries both recipients' hearts and notes to the sender once, with reply links", async () => {
    const ada = createUser(db, { email: "ada@family.test", timeZone: "Europe/London" });
    const folder = createFolder(db, ada.id, {
      name: "Family news",
      recipients: [
        { name: "Mum", email: "mum@family.test" },
        { name: "Uncle Bob", email: "bob@family.test" },
      ],
    });
    const beach = createItem(db, folder.id, { title: "Beach day", sortOrder: 0 });
    const recipe = createItem(db, folder.id, { title: "Gran's recipe", sortOrder: 1 });
    const sent = await sending.sendNow(ada.id, folder.id);
    expect(sent?.messages).toBe(2);
    expect(sink.to(ada.email)).toHaveLength(0);

    const copies = db
      .select()
      .from(schema.sendLedgerRecipients)
      .where(
        drizzle.inArray(schema.sendLedgerRecipients.email, ["mum@family.test", "bob@family.test"]),
      )
      .all();
    const copyOf = (email: string) => copies.find((copy) => copy.email === email)!.id;
    const code = (email: string, itemId: number) => links.answerLinkCode(copyOf(email), itemId);
    expect(answers.setHeart(code("mum@family.test", beach.id), true).state).toBe("done");
    expect(answers.setHeart(code("bob@family.test", beach.id), true).state).toBe("done");
    expect(answers.writeNote(code("mum@family.test", recipe.id), "Make it for Sunday?").state).toBe(
      "done",
    );
    expect(
      answers.writeNote(code("bob@family.test", beach.id), "Which beach? <script>x</script>").state,
    ).toBe("done");

    // 18:30 in London, whatever the day: the first run from 18:00 sends the day's gathering.
    const evening = new Date();
    evening.setUTCHours(18, 30, 0, 0);
    expect((await answerMail.gatherAnswers(evening)).messages).toBe(1);

    const [mail, ...more] = sink.to(ada.email);
    expect(more).toHaveLength(0);
    expect(mail!.subject).toBe("Your recipients answered: 2 hearts and 2 notes");
    expect(mail!.messageId).toMatch(/^<answers-\d+@localhost>$/);
    expect(mail!.text).toContain("Family news");
    expect(mail!.text).toContain("♥ from Mum, Uncle Bob");
    expect(mail!.text).toContain("Mum wrote: “Make it for Sunday?”");
    expect(mail!.text).toContain("Uncle Bob wrote: “Which beach? <script>x</script>”");
    expect(mail!.html).not.toContain("<script>");
    const html = mail!.html as string;
    const replies = DomUtils.findAll(
      (element) => element.name === "a" && DomUtils.textContent(element).startsWith("Reply to"),
      parseDocument(html).children,
    ).map((link) => ({ href: link.attribs.href, name: DomUtils.textContent(link).slice(9) }));
    expect(replies).toEqual([
      { href: "mailto:bob@family.test?subject=Re%3A%20Beach%20day", name: "Uncle Bob" },
      { href: "mailto:mum@family.test?subject=Re%3A%20Gran's%20recipe", name: "Mum" },
    ]);
    expect(html).toContain(
      `http://localhost:3000/folders/${folder.id}/sent/${copies[0]!.ledgerId}`,
    );
    expect(html).toContain('href="http://localhost:3000/save"');
    expect(html).toContain(`href="http://localhost:3000/folders/${folder.id}/edit"`);

    // Later runs the same evening send nothing more.
    expect((await answerMail.gatherAnswers(new Date(evening.getTime() + 60_000))).messages).toBe(0);
    expect((await answerMail.gatherAnswers(new Date(evening.getTime() + 3_600_000))).messages).toBe(
      0,
    );
    expect(sink.to(ada.email)).toHaveLength(1);
  });
});

/** A sender whose "each" folder was sent to Cy, and Cy's note back: it is due at once. */
async function seedNote(label: string) {
  const sender = createUser(db, { email: `${label}@family.test` });
  const folder = createFolder(db, sender.id, {
    name: "Cousins",
    answerEmails: "each",
    recipients: [{ name: "Cy", email: `cy-${label}@family.test` }],
  });
  const item = createItem(db, folder.id, { title: "Our trip" });
  expect((await sending.sendNow(sender.id, folder.id))?.messages).toBe(1);
  const copy = db
    .select()
    .from(schema.sendLedgerRecipients)
    .where(drizzle.eq(schema.sendLedgerRecipients.email, `cy-${label}@family.test`))
    .get()!;
  expect(answers.writeNote(links.answerLinkCode(copy.id, item.id), "Again next year!").state).toBe(
    "done",
  );
  const digest = () =>
    db
      .select()
      .from(schema.answerDigests)
      .where(drizzle.eq(schema.answerDigests.userId, sender.id))
      .get();
  return { sender, digest };
}

/** The production build with its scheduler on, on this file's database, sending to the sink. */
function server(faultPoint?: string) {
  return launchBuiltServer(
    {
      NODE_ENV: "test",
      // The Message-ID's host: the same app as this process's, which resumes after a crash.
      APP_URL: process.env.APP_URL!,
      SCHEDULER: "on",
      SMTP_URL: process.env.SMTP_URL!,
      MAIL_FROM: process.env.MAIL_FROM!,
      THOUGHTFULLY_FAULT_POINT: faultPoint ?? "",
    },
    { dataDir: thisFilesDataDir() },
  );
}

describe("the production server killed in the middle of the answer mail", () => {
  test("after its claim: the next server sends the note at its start, once", async () => {
    const { sender, digest } = await seedNote("bea");
    const crashed = await server("answers-claimed");
    expect(await crashed.exited, crashed.stderr()).toEqual({ code: null, signal: "SIGKILL" });
    expect(digest()).toMatchObject({ status: "pending", attempts: 0, nextAttemptAt: null });
    expect(sink.to(sender.email)).toHaveLength(0);

    const restarted = await server();
    await waitUntil(() => digest()?.status === "sent", 30_000, "the note's e-mail marked sent");
    await restarted.stop();
    expect(digest()).toMatchObject({ attempts: 1, key: expect.stringMatching(/^note:\d+$/) });
    const [mail, ...more] = sink.to(sender.email);
    expect(more).toHaveLength(0);
    expect(mail!.subject).toBe("Cy wrote back about “Our trip”");
    expect(mail!.text).toContain("Again next year!");
    expect(mail!.replyTo?.value[0]?.address).toBe("cy-bea@family.test");
  }, 60_000);

  test("after the SMTP server accepted it: sent again once its lease is over, with the same Message-ID", async () => {
    const { sender, digest } = await seedNote("cal");
    const crashed = await server("answer-mail-accepted");
    expect(await crashed.exited, crashed.stderr()).toEqual({ code: null, signal: "SIGKILL" });
    expect(sink.to(sender.email)).toHaveLength(1);
    const leaseEnd = digest()!.nextAttemptAt!;
    expect(digest()).toMatchObject({ status: "pending", attempts: 0 });

    // Within the dead run's lease nobody sends it; past it, the next run does, once.
    expect((await answerMail.gatherAnswers()).messages).toBe(0);
    const later = new Date(leaseEnd.getTime() + 60_000);
    expect((await answerMail.gatherAnswers(later)).messages).toBe(1);
    expect((await answerMail.gatherAnswers(new Date(later.getTime() + 60_000))).messages).toBe(0);
    const [first, second, ...more] = sink.to(sender.email);
    expect(more).toHaveLength(0);
    expect(second!.messageId).toBe(first!.messageId);
    expect(digest()).toMatchObject({ status: "sent", attempts: 1 });
  }, 60_000);
});
