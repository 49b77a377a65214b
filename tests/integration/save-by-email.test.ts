import { describe, expect, test } from "vitest";
import { startSaveByEmailWorld } from "../support/save-by-email-world";

/**
 * Issue 38, end to end with real parts: the production build receives mail
 * for folders' addresses over SMTP (its own receiver) and as a provider's
 * webhook post; mailauth checks each message's DKIM, SPF and DMARC against a
 * real DNS server on loopback that publishes the test domain's records; the
 * items land in the one database this process shares; the answer goes
 * through a real SMTP server. Needs `npm run build` first.
 */
const {
  DOMAIN,
  strangerKeys,
  db,
  factories,
  inbox,
  ada,
  folder,
  address,
  recipe,
  smtpSend,
  rawMessage,
  postWebhook,
  itemsOf,
  answersTo,
  refusals,
  fullSender,
  smtpDialog,
  spooledFiles,
} = await startSaveByEmailWorld();

describe("saving by e-mail", () => {
  test("a forwarded message over SMTP becomes a link item and a photo item, one thought: the words with their links are each one's note, and Ada gets one answer saying both go out", async () => {
    await smtpSend(recipe(address));
    const items = itemsOf(folder.id);
    expect(items.map((item) => item.type)).toEqual(["link", "photo"]);
    const words = "For Sunday, look: https://example.com/soup and https://example.com/bread";
    expect(items[0]).toMatchObject({
      title: "Lentil soup",
      urls: ["https://example.com/soup", "https://example.com/bread"],
      addComment: true,
      commentText: words,
    });
    expect(items[1]).toMatchObject({
      title: "Lentil soup (2)",
      addComment: true,
      commentText: words,
    });
    // Saved one after the other in the folder's order.
    expect(items[1]!.sortOrder).toBe(items[0]!.sortOrder + 1);
    expect(items[1]!.fileNames).toEqual(["soup.jpg"]);
    expect(items[1]!.mimeTypes).toEqual(["image/jpeg"]);
    const answers = answersTo("ada@family.test");
    expect(answers.map((answer) => answer.subject)).toEqual(["Saved 2 items to Family news"]);
    const text = (answers[0]!.text ?? "").replace(/\s+/g, " ");
    expect(text).toContain(
      "Go out with the next issue of Family news: the link “Lentil soup” and the photo “Lentil soup (2)”.",
    );
    expect(text).not.toMatch(/wait/i);
    expect(spooledFiles()).toEqual([]);
  });

  test("a photo forwarded without words waits for a note, and the answer says so and why; a link with words goes out", async () => {
    const before = itemsOf(folder.id).length;
    const answers = answersTo("ada@family.test").length;
    await smtpSend({ ...recipe(address), subject: "Fwd: Just the photo", text: "" });
    const added = itemsOf(folder.id).slice(before);
    expect(added.map((item) => [item.type, item.title, item.commentText])).toEqual([
      ["photo", "Just the photo", null],
    ]);
    const answer = answersTo("ada@family.test")[answers]!;
    expect(answer.subject).toBe("Saved 1 item to Family news");
    const text = (answer.text ?? "").replace(/\s+/g, " ");
    expect(text).toContain("Waits for a note: the photo “Just the photo”.");
    expect(text).toContain("a link, photo or file is sent only with a comment or a question");
    expect(text).not.toMatch(/goes? out with/i);

    await smtpSend({
      ...recipe(address),
      subject: "Fwd: Bread",
      html: '<p>Bread for Sunday and <a href="https://example.com/bread">the recipe</a></p>',
      text: undefined,
      attachments: [],
    });
    const bread = itemsOf(folder.id).at(-1)!;
    expect(bread).toMatchObject({
      title: "Bread",
      urls: ["https://example.com/bread"],
      commentText: "Bread for Sunday and the recipe (https://example.com/bread)",
    });
    expect((answersTo("ada@family.test")[answers + 1]!.text ?? "").replace(/\s+/g, " ")).toContain(
      "Goes out with the next issue of Family news: the link “Bread”.",
    );
  });

  test("the same kind of message as a provider's webhook post is saved once, however often it is posted", async () => {
    const raw = await rawMessage({
      ...recipe(address),
      subject: "Bread",
      messageId: "<bread@family.test>",
    });
    const before = itemsOf(folder.id).length;
    const first = await postWebhook({ RawEmail: raw, OriginalRecipient: address });
    expect(await first.json()).toEqual({ outcome: "saved" });
    const again = await postWebhook({ RawEmail: raw, OriginalRecipient: address });
    expect(await again.json()).toEqual({ outcome: "duplicate" });
    expect(itemsOf(folder.id).length).toBe(before + 2);
    expect((await postWebhook({ RawEmail: raw }, "wrong-token-wrong-token-wrong")).status).toBe(
      404,
    );
  });

  test("one message sent to two folders' addresses is saved in each: a duplicate is per folder", async () => {
    const walks = factories.createFolder(db, ada.id, { name: "Walks" });
    const walksAddress = inbox.makeInboxAddress(ada.id, walks.id)!;
    const raw = await rawMessage({
      ...recipe(address),
      to: [address, walksAddress],
      subject: "Both",
      messageId: "<both@family.test>",
    });
    const before = itemsOf(folder.id).length;
    for (const to of [address, walksAddress]) {
      const response = await postWebhook({ RawEmail: raw, OriginalRecipient: to });
      expect(await response.json()).toEqual({ outcome: "saved" });
    }
    expect(itemsOf(folder.id).length).toBe(before + 2);
    expect(itemsOf(walks.id).map((item) => item.title)).toEqual(["Both", "Both (2)"]);
  });

  test("a spoofed From (signed with another key) is accepted by SMTP, saves nothing, gets no answer and is counted", async () => {
    const before = itemsOf(folder.id).length;
    const answers = answersTo("ada@family.test").length;
    const events = refusals().length;
    await smtpSend({ ...recipe(address), subject: "Spoof" }, strangerKeys.privateKey);
    const raw = await rawMessage(
      { ...recipe(address), subject: "Spoof 2" },
      strangerKeys.privateKey,
    );
    expect(await (await postWebhook({ RawEmail: raw, OriginalRecipient: address })).json()).toEqual(
      { outcome: "dropped" },
    );
    expect(itemsOf(folder.id).length).toBe(before);
    expect(answersTo("ada@family.test").length).toBe(answers);
    expect(refusals().length).toBe(events + 2);
    expect(refusals().at(-1)!.details).toMatchObject({ reason: expect.stringContaining("DMARC") });
    expect(spooledFiles()).toEqual([]);
  });

  test("an envelope sender that is not the folder's owner, or a bounce, is refused at RCPT TO, before any data", async () => {
    const before = itemsOf(folder.id).length;
    const events = refusals().length;
    const replies = await smtpDialog([
      "EHLO mail.family.test",
      "MAIL FROM:<bo@family.test>",
      `RCPT TO:<${address}>`,
      "RSET",
      "MAIL FROM:<>",
      `RCPT TO:<${address}>`,
      "RSET",
      "MAIL FROM:<ada@family.test>",
      `RCPT TO:<${address}>`,
      "QUIT",
    ]);
    expect(replies.map((reply) => reply.slice(0, 3))).toEqual([
      "220",
      "250",
      "250",
      "550",
      "250",
      "250",
      "550",
      "250",
      "250",
      "250",
      "221",
    ]);
    // A whole message from Bo's server never gets as far as DATA.
    await expect(smtpSend({ ...recipe(address), from: "bo@family.test" })).rejects.toThrow(/550/);
    expect(itemsOf(folder.id).length).toBe(before);
    expect(refusals().length).toBe(events);
  });

  test("a wrong code and a rotated code are refused at RCPT TO", async () => {
    await expect(smtpSend(recipe(`abcdefghijkmnpqr@${DOMAIN}`))).rejects.toThrow(/550/);
    const rotated = inbox.makeInboxAddress(ada.id, folder.id)!;
    await expect(smtpSend(recipe(address))).rejects.toThrow(/550/);
    const before = itemsOf(folder.id).length;
    await smtpSend({ ...recipe(rotated), subject: "After rotation" });
    expect(itemsOf(folder.id).length).toBe(before + 2);
  });

  test("over quota: nothing is stored, and the answer says why", async () => {
    const { folder: target, address: to } = fullSender("Bo");
    await smtpSend({ ...recipe(to), from: "bo@family.test" });
    expect(itemsOf(target.id)).toEqual([]);
    const [answer] = answersTo("bo@family.test");
    expect(answer?.subject).toBe("Nothing saved to Bo's news");
    expect(answer?.text).toMatch(/Nothing from your message was saved\. You're using 50\.0 MB/);
  });

  test("malformed and oversized-in-parts messages are dropped with nothing stored", async () => {
    const before = itemsOf(folder.id).length;
    const garbage = await postWebhook({
      RawEmail: "\u0000\u0001 not mail at all",
      OriginalRecipient: address,
    });
    expect(await garbage.json()).toEqual({ outcome: "dropped" });
    const manyParts = await rawMessage({
      ...recipe(address),
      subject: "Many",
      attachments: Array.from({ length: 45 }, (_, index) => ({
        filename: `n${index}.txt`,
        content: "x",
      })),
    });
    expect(
      await (await postWebhook({ RawEmail: manyParts, OriginalRecipient: address })).json(),
    ).toEqual({ outcome: "dropped" });
    expect(itemsOf(folder.id).length).toBe(before);
  });
});

describe("odd mail", () => {
  // The address in use now: an earlier test replaced the first one.
  const current = () => inbox.inboxAddress(ada.id, folder.id)!;

  test("a file over the per-file limit: nothing saved, the answer gives the app's reason", async () => {
    const before = itemsOf(folder.id).length;
    const answers = answersTo("ada@family.test").length;
    const big = Buffer.concat([Buffer.from("%PDF-1.4\n"), Buffer.alloc(11 * 1024 * 1024, 32)]);
    await smtpSend({
      ...recipe(current()),
      subject: "Big file",
      text: "",
      attachments: [{ filename: "big.pdf", content: big, contentType: "application/pdf" }],
    });
    expect(itemsOf(folder.id).length).toBe(before);
    const answer = answersTo("ada@family.test")[answers];
    expect(answer?.subject).toBe("Nothing saved to Family news");
    expect(answer?.text).toMatch(/big\.pdf/);
  });

  test("a forwarded-as-attachment message is read as part of the message", async () => {
    const before = itemsOf(folder.id).length;
    await smtpSend({
      ...recipe(current()),
      subject: "Old thread",
      text: "Keep this",
      attachments: [
        {
          filename: "thread.eml",
          content: "From: bo@example.com\r\nSubject: inner\r\n\r\nhttps://example.com/inner",
          contentType: "message/rfc822",
        },
      ],
    });
    const added = itemsOf(folder.id).slice(before);
    expect(added.map((item) => [item.type, item.title, item.urls])).toEqual([
      ["link", "Old thread", ["https://example.com/inner"]],
    ]);
  });

  test("a Latin-1, quoted-printable message reads as written", async () => {
    const before = itemsOf(folder.id).length;
    await smtpSend({
      envelope: { from: "ada@family.test", to: [current()] },
      raw: [
        "From: Ada <ada@family.test>",
        `To: ${current()}`,
        "Subject: =?ISO-8859-1?Q?Cr=E8me_br=FBl=E9e?=",
        "Message-ID: <creme@family.test>",
        "MIME-Version: 1.0",
        "Content-Type: text/plain; charset=ISO-8859-1",
        "Content-Transfer-Encoding: quoted-printable",
        "",
        "Caf=E9 recipe, gr=E2ce =E0 Bo",
        "",
      ].join("\r\n"),
    });
    const added = itemsOf(folder.id).slice(before);
    expect(added.map((item) => [item.type, item.title, item.note])).toEqual([
      ["musing", "Crème brûlée", "Café recipe, grâce à Bo"],
    ]);
  });
});
