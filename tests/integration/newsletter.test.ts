import { Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import type { NewsletterItem } from "#emails/newsletter";
import {
  attachmentsFor,
  GMAIL_CLIP_BYTES,
  type NewsletterInput,
  personalize,
  type RenderedNewsletter,
  renderNewsletter,
} from "#emails/newsletter.server";
import { answerUrl, readAnswerLinkCode } from "~/modules/recipients/recipient-links.server";
import { listOutbox, readOutboxMessage, sendEmail } from "~/platform/mailer.server";
import { storage } from "~/platform/storage.server";

let nextId = 1;

function item(values: Partial<NewsletterItem> & Pick<NewsletterItem, "type" | "title">) {
  const id = values.id ?? nextId++;
  return {
    id,
    folderId: 1,
    urls: [],
    filePaths: [],
    fileNames: [],
    fileSizes: [],
    mimeTypes: [],
    thumbnailPaths: [],
    addComment: false,
    askQuestion: false,
    commentText: null,
    questionText: null,
    note: null,
    responseExpectation: "na",
    sortOrder: id,
    securityStatus: "safe",
    quarantineReason: null,
    missingFiles: [],
    previewStatus: null,
    previewUrl: null,
    previewTitle: null,
    previewDescription: null,
    previewSiteName: null,
    previewImageKey: null,
    previewImageSize: 0,
    previewAttempts: 0,
    previewNextAttemptAt: null,
    videoStatus: null,
    videoProgress: 0,
    videoError: null,
    videoAttempts: 0,
    videoNextAttemptAt: null,
    videoDurationMs: null,
    createdAt: new Date(0),
    sentAt: null,
    ...values,
  } satisfies NewsletterItem;
}

const key = (digit: string) => digit.repeat(32);

const link = item({
  id: 11,
  sortOrder: 0,
  type: "link",
  title: "Tide tables",
  urls: ["https://example.com/tides?week=3&place=bay", "https://www.example.org/"],
  addComment: true,
  commentText: "We could go\nnext weekend.",
  askQuestion: true,
  questionText: "Are you free on Saturday?",
  responseExpectation: "expecting",
});
const musing = item({
  id: 12,
  sortOrder: 1,
  type: "musing",
  title: "Thinking of you",
  note: "First line\nSecond line",
});
const photo = item({
  id: 13,
  sortOrder: 2,
  type: "photo",
  title: "The beach",
  filePaths: [key("a"), key("b")],
  fileNames: ["beach.jpg", "dunes.png"],
  fileSizes: [200_000, 150_000],
  mimeTypes: ["image/jpeg", "image/png"],
  thumbnailPaths: [key("c"), key("d")],
  responseExpectation: "not_expecting",
});
const file = item({
  id: 14,
  sortOrder: 3,
  type: "file",
  title: "Recipes",
  filePaths: [key("e")],
  fileNames: ["recipes.pdf"],
  fileSizes: [2_400_000],
  mimeTypes: ["application/pdf"],
});

const sender = { firstName: "Ada", lastName: "Lovelace", email: "ada@example.com" };

function input(items: NewsletterItem[], overrides: Partial<NewsletterInput> = {}): NewsletterInput {
  return {
    folder: { id: 7, name: "Family", personalSignoff: "Love,\nAda" },
    sender,
    items,
    ...overrides,
  };
}

/** A copy (send_ledger_recipients row) as numbered after a million copies sent: its link is as long as real ones. */
const COPY_ID = 1_000_000;

const recipient = {
  email: "mum@example.com",
  unsubscribeUrl:
    "https://thoughtfully.test/unsubscribe?folder=7&email=mum%40example.com&token=t0k",
  answerUrlFor: (itemId: number) => answerUrl(COPY_ID, itemId),
};

/** The answer links in a body, in order, read back to their copy and item. */
function answerLinks(body: string) {
  return [...body.matchAll(/\/a\/([0-9a-z]+\.[0-9a-z]+\.[A-Za-z0-9_-]+)/g)].map((match) =>
    readAnswerLinkCode(match[1]!),
  );
}

/** Positions of each needle in the haystack, which must all exist. */
function positions(haystack: string, needles: string[]) {
  return needles.map((needle) => {
    const index = haystack.indexOf(needle);
    expect(index, needle).toBeGreaterThanOrEqual(0);
    return index;
  });
}

function isAscending(numbers: number[]) {
  return numbers.every((value, index) => index === 0 || value > numbers[index - 1]!);
}

describe("renderNewsletter", () => {
  // Shuffled on purpose: the e-mail follows sortOrder, not the array.
  const rendered = renderNewsletter(input([file, musing, photo, link]));
  const { html, text } = personalize(rendered, recipient);

  it("names the folder and the sender, in the subject too", () => {
    expect(rendered.subject).toBe('"Family" from Ada: 4 things');
    expect(renderNewsletter(input([musing])).subject).toBe('"Family" from Ada: 1 thing');
    expect(html).toContain("<h1");
    expect(html).toMatch(/>Family<\/h1>/);
    expect(html).toContain("from Ada Lovelace");
    expect(text).toMatch(/^Family\n\nfrom Ada Lovelace/);
  });

  it("keeps the subject plain: no capitals-only words, no 'free', no exclamation marks", () => {
    expect(rendered.subject).not.toMatch(/!|\bfree\b/i);
    expect(rendered.subject).not.toMatch(/\b[A-Z]{2,}\b/);
  });

  it("shows all four kinds of item in their order", () => {
    const titles = ["Tide tables", "Thinking of you", "The beach", "Recipes"];
    expect(isAscending(positions(html, titles))).toBe(true);
    expect(isAscending(positions(text, titles))).toBe(true);
  });

  it("shows a link's addresses, comment, question and reply hope", () => {
    expect(html).toContain('href="https://example.com/tides?week=3&amp;place=bay"');
    expect(html).toContain(">example.com/tides?week=3&amp;place=bay</a>");
    expect(html).toContain('href="https://www.example.org/"');
    expect(html).toContain("<b>Ada says:</b> We could go<br>next weekend.");
    expect(html).toContain("<b>Ada asks:</b> Are you free on Saturday?");
    expect(html).toContain("Reply hoped for");
    expect(text).toContain("Ada says: We could go\nnext weekend.");
    expect(text).toContain("Ada asks: Are you free on Saturday?");
  });

  it("says no reply is needed, and nothing when the sender did not say", () => {
    expect(html).toContain("No reply needed");
    const quiet = renderNewsletter(input([musing, file]));
    expect(quiet.html).not.toMatch(/Reply hoped for|No reply needed/);
  });

  it("keeps the line breaks of musings and of the sign-off", () => {
    expect(html).toContain("First line<br>Second line");
    expect(text).toContain("First line\nSecond line");
    expect(html).toContain("Love,<br>Ada");
    expect(text).toContain("Love,\nAda");
    const titleAt = html.indexOf("Recipes");
    expect(html.indexOf("Love,<br>Ada")).toBeGreaterThan(titleAt);
  });

  it("shows photos inline by cid and lists them as inline attachments", () => {
    expect(html).toMatch(
      /<img src="cid:photo-13-0@thoughtfully" alt="beach\.jpg" width="550" style="[^"]*max-width: 100%/,
    );
    expect(html).toContain('<img src="cid:photo-13-1@thoughtfully" alt="dunes.png"');
    expect(rendered.attachments.filter((attachment) => attachment.cid)).toEqual([
      {
        filename: "beach.jpg",
        storageKey: key("a"),
        contentType: "image/jpeg",
        cid: "photo-13-0@thoughtfully",
        size: 200_000,
      },
      {
        filename: "dunes.png",
        storageKey: key("b"),
        contentType: "image/png",
        cid: "photo-13-1@thoughtfully",
        size: 150_000,
      },
    ]);
    // Every cid in the HTML has its attachment, and thumbnails are never sent.
    const cids = [...html.matchAll(/src="cid:([^"]+)"/g)].map((match) => match[1]);
    expect(cids).toEqual(rendered.attachments.flatMap((attachment) => attachment.cid ?? []));
    expect(JSON.stringify(rendered.attachments)).not.toContain(key("c"));
    expect(text).toContain("beach.jpg (photo, attached)");
  });

  it("lists files by name and size and attaches them", () => {
    expect(html).toContain("recipes.pdf");
    expect(html).toContain("(2.3 MB, attached)");
    expect(text).toContain("recipes.pdf (2.3 MB, attached)");
    expect(rendered.attachments.at(-1)).toEqual({
      filename: "recipes.pdf",
      storageKey: key("e"),
      contentType: "application/pdf",
      size: 2_400_000,
    });
  });

  it("counts the size of the HTML and of the whole message", () => {
    expect(rendered.htmlBytes).toBe(Buffer.byteLength(rendered.html));
    expect(rendered.totalBytes).toBe(
      rendered.htmlBytes + Buffer.byteLength(rendered.text) + 200_000 + 150_000 + 2_400_000,
    );
  });

  it("has a footer naming the recipient, the folder and the sender, and the unsubscribe link", () => {
    expect(text.replace(/\s+/g, " ")).toContain(
      'You receive this because Ada added mum@example.com to the folder "Family" on Thoughtfully. Reply to this e-mail to reach Ada. Hearts and notes you send go only to Ada.',
    );
    expect(html).toContain(
      "You receive this because Ada added mum@example.com to the folder &quot;Family&quot; on Thoughtfully. Reply to this e-mail to reach Ada. Hearts and notes you send go only to Ada.",
    );
    expect(html).toContain(
      `<a href="https://thoughtfully.test/unsubscribe?folder=7&amp;email=mum%40example.com&amp;token=t0k"`,
    );
    expect(html).toMatch(/>Unsubscribe<\/a>/);
  });

  it("gives every item the recipient's own link to answer it, in the HTML and the text", () => {
    const titles = ["Tide tables", "Thinking of you", "The beach", "Recipes"];
    const ids = [11, 12, 13, 14];
    for (const body of [html, text]) {
      expect(answerLinks(body)).toEqual(ids.map((itemId) => ({ copyId: COPY_ID, itemId })));
      // Each link follows its own item's title, before the next one's.
      const titlesAt = positions(body, titles);
      const linksAt = positions(
        body,
        ids.map((itemId) => answerUrl(COPY_ID, itemId)),
      );
      expect(isAscending(titlesAt.flatMap((at, index) => [at, linksAt[index]!]))).toBe(true);
    }
    expect(html).toContain(`<a href="${answerUrl(COPY_ID, 11)}">♥ Send Ada a heart or a note</a>`);
    expect(text).toContain(`♥ Send Ada a heart or a note [${answerUrl(COPY_ID, 11)}]`);
  });

  it("is a 600 px table, fluid on phones, with dark-mode rules and inlined light styles", () => {
    expect(html.startsWith("<!DOCTYPE html>")).toBe(true);
    expect(html).toContain('<meta name="viewport" content="width=device-width, initial-scale=1">');
    expect(html).toMatch(/<table role="presentation" class="w" width="600"[^>]*max-width: 600px/);
    expect(html).toContain("@media (prefers-color-scheme: dark)");
    expect(html).toContain("@media only screen and (max-width: 620px)");
    expect(html).toMatch(/<td class="c" style="background-color: #ffffff;[^"]*color: #292524/);
    // Only media queries stay in the head; everything else is inline.
    expect(html).not.toContain(".t1 {");
    expect(html).not.toContain(".f {");
    expect(html).toMatch(/<h2 style="[^"]*border-top: 1px solid #e7e5e4/);
  });

  it("loads nothing: no scripts, no style sheets, no images from the web", () => {
    expect(html).not.toMatch(/<script/i);
    expect(html).not.toMatch(/<link/i);
    expect(html).not.toMatch(/<img[^>]+src="(?!cid:)/i);
    expect(html).not.toMatch(/src="https?:/i);
    expect(html).not.toMatch(/url\(/i);
  });
});

describe("sender text", () => {
  const hostile = item({
    type: "link",
    title: 'Look <script>alert("x")</script>',
    urls: ["https://example.com/?q=<b>", "javascript:alert(1)"],
    addComment: true,
    commentText: 'She said "hello" & left <img src=x onerror=alert(1)>',
  });
  const rendered = renderNewsletter(
    input([hostile], {
      folder: { id: 1, name: 'Mum & "Dad" <3', personalSignoff: "</td><script>x</script>" },
      sender: { firstName: "<b>Eve</b>", lastName: null, email: "eve@example.com" },
    }),
  );
  const { html, text } = personalize(rendered, recipient);

  it("comes out escaped in the HTML", () => {
    expect(html).not.toMatch(/<script/i);
    expect(html).not.toMatch(/<img src=x/i);
    expect(html).toContain("Look &lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;");
    expect(html).toContain(
      "She said &quot;hello&quot; &amp; left &lt;img src=x onerror=alert(1)&gt;",
    );
    expect(html).toContain("Mum &amp; &quot;Dad&quot; &lt;3");
    expect(html).toContain("&lt;b&gt;Eve&lt;/b&gt; says:");
    expect(html).toContain("&lt;/td&gt;&lt;script&gt;x&lt;/script&gt;");
  });

  it("makes only web addresses into links", () => {
    expect(html).not.toContain('href="javascript:');
    expect(html).toContain("javascript:alert(1)");
  });

  it("reads as typed in the plain text", () => {
    expect(text).toContain('Look <script>alert("x")</script>');
    expect(text).toContain('She said "hello" & left <img src=x onerror=alert(1)>');
    expect(text).toContain('Mum & "Dad" <3');
    expect(text).toContain("<b>Eve</b> says:");
    expect(rendered.subject).toBe('"Mum & "Dad" <3" from <b>Eve</b>: 1 thing');
  });

  it("cannot spell a placeholder that personalize would fill", () => {
    const sneaky = renderNewsletter(
      input([
        item({
          type: "musing",
          title: "%%UNSUBSCRIBE_URL%%",
          note: "Write to %%RECIPIENT_EMAIL%%",
        }),
        item({ type: "link", title: "x", urls: ["https://example.com/%%UNSUBSCRIBE_URL%%"] }),
        item({
          id: 21,
          type: "musing",
          title: "%%ANSWER_URL:21%%",
          note: "%%ANSWER_URL:1%%",
          addComment: true,
          commentText: "%%ANSWER_URL:21%%",
        }),
      ]),
    );
    const filled = personalize(sneaky, recipient);
    for (const body of [filled.html, filled.text]) {
      expect(body.split(recipient.email).length - 1).toBe(1); // the footer only
      expect(body).not.toContain("token=t0k</");
      // Only the item's own link, once.
      expect(body.split(answerUrl(COPY_ID, 21)).length - 1).toBe(1);
      expect(body).not.toContain(answerUrl(COPY_ID, 1));
    }
    expect(filled.html.match(/token=t0k/g)).toHaveLength(1);
    expect(filled.html).toContain('href="https://example.com/%25%25UNSUBSCRIBE_URL%25%25"');
  });
});

describe("personalize", () => {
  const rendered = renderNewsletter(input([link, musing]));

  it("fills both placeholders and escapes them in the HTML only", () => {
    const awkward = {
      email: "tom&jerry@example.com",
      unsubscribeUrl:
        "https://thoughtfully.test/unsubscribe?folder=7&email=tom%26jerry%40example.com",
    };
    const { html, text } = personalize(rendered, awkward);
    expect(html).toContain("added tom&amp;jerry@example.com to the folder");
    expect(html).toContain(
      'href="https://thoughtfully.test/unsubscribe?folder=7&amp;email=tom%26jerry%40example.com"',
    );
    expect(html).not.toContain("tom&jerry@");
    expect(text).toContain("added tom&jerry@example.com to the folder");
    expect(text).toContain(`Unsubscribe [${awkward.unsubscribeUrl}]`);
    for (const body of [html, text]) {
      expect(body).not.toContain("%%RECIPIENT_EMAIL%%");
      expect(body).not.toContain("%%UNSUBSCRIBE_URL%%");
    }
  });

  it("fills each item's answer link with the recipient's own, and leaves it empty when there is none", () => {
    const mum = personalize(rendered, recipient);
    const dad = personalize(rendered, {
      ...recipient,
      answerUrlFor: (itemId) => answerUrl(7, itemId),
    });
    expect(answerLinks(mum.html)).toEqual([11, 12].map((itemId) => ({ copyId: COPY_ID, itemId })));
    expect(answerLinks(dad.text)).toEqual([11, 12].map((itemId) => ({ copyId: 7, itemId })));
    const nowhere = personalize(rendered, { email: recipient.email, unsubscribeUrl: "#" });
    for (const body of [mum.html, mum.text, nowhere.html, nowhere.text]) {
      expect(body).not.toContain("%%ANSWER_URL");
    }
    expect(nowhere.html).toContain('<a href="">♥ Send Ada a heart or a note</a>');
  });

  it("leaves the rendered newsletter as it was, for the next recipient", () => {
    const before = rendered.html;
    const first = personalize(rendered, recipient);
    const second = personalize(rendered, {
      email: "dad@example.com",
      unsubscribeUrl: "https://thoughtfully.test/u?d",
    });
    expect(rendered.html).toBe(before);
    expect(rendered.html).toContain("%%RECIPIENT_EMAIL%%");
    expect(first.html).not.toBe(second.html);
    expect(second.html).toContain("dad@example.com");
    expect(second.html).not.toContain("mum@example.com");
  });

  it("puts every address in full, and the unsubscribe link, into the plain text", () => {
    const { text } = personalize(rendered, recipient);
    expect(text).toContain("https://example.com/tides?week=3&place=bay");
    expect(text).toContain("https://www.example.org/");
    expect(text).toContain(recipient.unsubscribeUrl);
    expect(text).not.toMatch(/<[a-z]/i);
  });
});

describe("a full folder", () => {
  const words = "a thoughtful sentence about something worth sharing with the family, ";
  const long = (length: number) => words.repeat(Math.ceil(length / words.length)).slice(0, length);
  const fullFolder = (withBoth: boolean) =>
    Array.from({ length: 50 }, (_, index) =>
      item({
        type: "link",
        title: `An article worth reading, number ${index + 1} of the fifty in this folder`,
        urls: Array.from(
          { length: 5 },
          (_, n) =>
            `https://www.example-news.com/2025/06/${index}/a-longer-article-slug-${n}?ref=share`,
        ),
        addComment: withBoth || index % 2 === 0,
        commentText: withBoth || index % 2 === 0 ? long(1000) : null,
        askQuestion: withBoth || index % 2 === 1,
        questionText: withBoth || index % 2 === 1 ? long(1000) : null,
        responseExpectation: "expecting",
      }),
    );
  /** Bytes the sender typed that the HTML must carry: titles, addresses (href), texts. */
  const senderBytes = (items: NewsletterItem[]) =>
    items.reduce(
      (sum, entry) =>
        sum +
        entry.title.length +
        entry.urls.join("").length +
        (entry.commentText?.length ?? 0) +
        (entry.questionText?.length ?? 0),
      0,
    );

  it("stays under Gmail's clipping size with 5 links and a 1000-character text per item", () => {
    const items = fullFolder(false);
    const { html } = personalize(renderNewsletter(input(items)), recipient);
    const bytes = Buffer.byteLength(html);
    console.info(
      `50 links, 5 URLs and one 1000-character text each, with answer links: ${bytes} bytes of HTML (sender text ${senderBytes(items)})`,
    );
    expect(bytes).toBeLessThan(GMAIL_CLIP_BYTES);
    expect(html).toContain(">Unsubscribe</a>");
    expect(answerLinks(html)).toHaveLength(50);
  });

  it("stays well under Gmail's clipping size with 50 items of every kind, each with its answer link", () => {
    const kinds = [
      (index: number) =>
        item({
          type: "link",
          title: `A good read for the weekend, number ${index + 1}`,
          urls: [`https://www.example-news.com/2025/06/${index}/a-longer-article-slug?ref=share`],
          addComment: true,
          commentText: "This made me think of our walk last spring. What do you make of it?",
          responseExpectation: "expecting",
        }),
      (index: number) =>
        item({
          type: "musing",
          title: `Thinking of you, ${index + 1}`,
          note: "We walked by the river this morning and talked about the summer trip.\nSee you soon.",
        }),
      (index: number) =>
        item({
          type: "photo",
          title: `The view from the bridge, ${index + 1}`,
          filePaths: [key("a"), key("b")],
          fileNames: ["bridge.jpg", "river.jpg"],
          fileSizes: [200_000, 180_000],
          mimeTypes: ["image/jpeg", "image/jpeg"],
          addComment: true,
          commentText: "Taken just before the rain.",
        }),
      (index: number) =>
        item({
          type: "file",
          title: `The recipe, ${index + 1}`,
          filePaths: [key("e")],
          fileNames: ["grandmas-apple-cake.pdf"],
          fileSizes: [240_000],
          mimeTypes: ["application/pdf"],
          askQuestion: true,
          questionText: "Shall we bake it on Sunday?",
        }),
    ];
    const items = Array.from({ length: 50 }, (_, index) => kinds[index % kinds.length]!(index));
    const { html, text } = personalize(renderNewsletter(input(items)), recipient);
    const bytes = Buffer.byteLength(html);
    console.info(`50 items of every kind, with answer links: ${bytes} bytes of HTML`);
    expect(bytes).toBeLessThan(GMAIL_CLIP_BYTES);
    const expected = items.map((entry) => ({ copyId: COPY_ID, itemId: entry.id }));
    expect(answerLinks(html)).toEqual(expected);
    expect(answerLinks(text)).toEqual(expected);
  });

  it("adds little markup per item even when each item has a 1000-character comment and question", () => {
    // The sender's text alone is then over 100 KB, so no markup can keep the
    // HTML under Gmail's clipping size; what the template controls is its own share.
    const items = fullFolder(true);
    const { html } = personalize(renderNewsletter(input(items)), recipient);
    const bytes = Buffer.byteLength(html);
    const markup = bytes - senderBytes(items);
    console.info(
      `50 links, 5 URLs, 1000-character comment and question each, with answer links: ${bytes} bytes of HTML, ${markup} of them markup and link text (${Math.round(markup / 50)} per item)`,
    );
    expect(senderBytes(items)).toBeGreaterThan(GMAIL_CLIP_BYTES);
    // About 105 bytes of each item are its answer link (docs/decisions/0163-newsletter-size-with-answer-links.md).
    expect(markup / items.length).toBeLessThan(650);
  });
});

describe("attachmentsFor", () => {
  async function stored(content: string) {
    return (await storage.put(Readable.from([Buffer.from(content)]))).key;
  }

  async function withStoredFiles(): Promise<RenderedNewsletter> {
    const photoKey = await stored("fake jpeg bytes");
    const fileKey = await stored("%PDF-1.7 fake pdf");
    return renderNewsletter(
      input([
        { ...photo, filePaths: [photoKey], fileNames: ["beach.jpg"], fileSizes: [15] },
        { ...file, filePaths: [fileKey], fileSizes: [17] },
      ]),
    );
  }

  it("attaches photos inline by cid and files as attachments, read from storage", async () => {
    const rendered = await withStoredFiles();
    const attachments = await attachmentsFor(rendered, storage);
    expect(attachments.map(({ content, ...rest }) => rest)).toEqual([
      {
        filename: "beach.jpg",
        contentType: "image/jpeg",
        cid: "photo-13-0@thoughtfully",
        contentDisposition: "inline",
      },
      {
        filename: "recipes.pdf",
        contentType: "application/pdf",
        contentDisposition: "attachment",
      },
    ]);

    const { html, text } = personalize(rendered, recipient);
    await sendEmail({
      to: recipient.email,
      subject: rendered.subject,
      html,
      text,
      attachments,
    });
    const [entry] = await listOutbox();
    const message = await readOutboxMessage(entry!.id);
    expect(message?.subject).toBe('"Family" from Ada: 2 things');
    expect(message?.html).toContain('src="cid:photo-13-0@thoughtfully"');
    const raw = message!.raw;
    expect(raw).toMatch(/Content-Id: <photo-13-0@thoughtfully>/i);
    expect(raw).toMatch(/Content-Disposition: inline; filename=beach\.jpg/i);
    expect(raw).toMatch(/Content-Disposition: attachment; filename=recipes\.pdf/i);
    expect(raw).toContain(Buffer.from("fake jpeg bytes").toString("base64"));
    expect(raw).toContain(Buffer.from("%PDF-1.7 fake pdf").toString("base64"));
  });

  it("reads each stored file once into content every message can share", async () => {
    const rendered = await withStoredFiles();
    const attachments = await attachmentsFor(rendered, storage);
    expect(attachments.map((attachment) => String(attachment.content))).toEqual([
      "fake jpeg bytes",
      "%PDF-1.7 fake pdf",
    ]);
  });

  it("fails when a stored file is gone", async () => {
    const rendered = renderNewsletter(input([{ ...file, filePaths: [key("f")] }]));
    await expect(attachmentsFor(rendered, storage)).rejects.toThrow(/missing/);
  });
});

describe("link preview cards", () => {
  const card = (id: number, status: NewsletterItem["previewStatus"] = "ready") =>
    item({
      id,
      type: "link",
      title: `A link worth a card, number ${id}`,
      urls: [`https://www.example-news.com/2025/06/${id}/a-longer-article-slug?ref=share`],
      previewStatus: status,
      previewUrl: `https://www.example-news.com/2025/06/${id}/a-longer-article-slug?ref=share`,
      previewTitle: "T".repeat(200),
      previewDescription: `${"a description of the page, ".repeat(12).slice(0, 299)}…`,
      previewSiteName: "S".repeat(80),
      previewImageKey: key(String(id % 10)),
      previewImageSize: 40_000,
    });

  it("shows the picture inline by cid, the site and the description; the text part names them", () => {
    const rendered = renderNewsletter(input([card(31)]));
    expect(rendered.html).toContain('src="cid:preview-31@thoughtfully"');
    expect(rendered.html).toContain("S".repeat(80));
    expect(rendered.text).toContain("a description of the page");
    expect(rendered.attachments).toEqual([
      {
        filename: "preview.jpg",
        storageKey: key("1"),
        contentType: "image/jpeg",
        cid: "preview-31@thoughtfully",
        size: 40_000,
      },
    ]);
  });

  it("leaves a pending, failed or removed preview a plain link", () => {
    for (const status of ["pending", "failed", "removed"] as const) {
      const rendered = renderNewsletter(input([card(32, status)]));
      expect(rendered.html).not.toContain("cid:preview-");
      expect(rendered.html).not.toContain("a description of the page");
      expect(rendered.attachments).toEqual([]);
    }
  });

  it("does not personalise a placeholder a page put in its description", () => {
    const sneaky = { ...card(33), previewDescription: "Hi %%RECIPIENT_EMAIL%%" };
    const { html, text } = personalize(renderNewsletter(input([sneaky])), recipient);
    expect(html).not.toContain(`Hi ${recipient.email}`);
    expect(text).not.toContain(`Hi ${recipient.email}`);
  });

  it("stays under Gmail's clipping size with five cards of the longest texts", () => {
    const { html } = personalize(
      renderNewsletter(input([31, 32, 33, 34, 35].map((id) => card(id)))),
      recipient,
    );
    const bytes = Buffer.byteLength(html);
    console.info(`5 link cards: ${bytes} bytes of HTML`);
    expect(bytes).toBeLessThan(GMAIL_CLIP_BYTES);
    expect(html.match(/cid:preview-/g)).toHaveLength(5);
  });
});

describe("web version and tracking", () => {
  const links = {
    email: "mum@example.com",
    unsubscribeUrl: "https://app.test/u/x",
    webVersionUrl: "https://app.test/v/w",
    openPixelUrl: "https://app.test/t/o/o",
    clickUrlBase: "https://app.test/t/c/c?url=",
  };

  it("an untracked message links to its web version and carries no tracking", () => {
    const { html } = personalize(renderNewsletter(input([link])), links);
    expect(html).toContain('href="https://app.test/v/w"');
    expect(html).toContain("View in your browser");
    // In the folder's own green, not a mail app's default blue (issue 49).
    expect(html).toMatch(
      /<a href="https:\/\/app\.test\/v\/w" style="color: #30503b;">View in your browser<\/a>/,
    );
    expect(html).not.toContain("/t/o/");
    expect(html).not.toContain("/t/c/");
    expect(html).not.toContain("sees when this e-mail is opened");
    expect(html).toContain('href="https://example.com/tides?week=3&amp;place=bay"');
  });

  it("a tracked message has the open image, click links and the footer sentence; its text has none", () => {
    const { html, text } = personalize(renderNewsletter(input([link], { tracked: true })), links);
    expect(html).toContain('src="https://app.test/t/o/o"');
    expect(html).toContain(
      `href="https://app.test/t/c/c?url=${encodeURIComponent("https://example.com/tides?week=3&place=bay")}"`,
    );
    expect(html).toContain("Ada sees when this e-mail is opened and which links are clicked");
    expect(text).not.toContain("/t/c/");
    expect(text).toContain("https://example.com/tides?week=3&place=bay");
  });

  it("a tracked message's answer links go straight to the answer page, not through the click redirect", () => {
    const { html } = personalize(renderNewsletter(input([link, musing], { tracked: true })), {
      ...links,
      answerUrlFor: recipient.answerUrlFor,
    });
    expect(html).toContain(`<a href="${answerUrl(COPY_ID, 11)}">♥ Send Ada a heart or a note</a>`);
    expect(answerLinks(html)).toEqual([11, 12].map((itemId) => ({ copyId: COPY_ID, itemId })));
    expect(html).not.toContain(encodeURIComponent(answerUrl(COPY_ID, 11)));
  });

  it("sender text spelling a placeholder is never filled", () => {
    const sneaky = item({ type: "musing", title: "%%CLICK_URL%% %%WEB_VERSION_URL%%", note: "x" });
    const { html } = personalize(renderNewsletter(input([sneaky], { tracked: true })), links);
    expect(html).not.toContain("https://app.test/t/c/c?url= https://app.test/v/w");
  });
});
