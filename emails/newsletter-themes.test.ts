import os from "node:os";
import { describe, expect, it } from "vitest";
import type { NewsletterItem } from "#emails/newsletter";
import {
  attachmentsFor,
  GMAIL_CLIP_BYTES,
  personalize,
  renderNewsletter,
} from "#emails/newsletter.server";
import {
  HEADER_IMAGE_CID,
  NEWSLETTER_TEMPLATES,
  type NewsletterBranding,
} from "#emails/newsletter-themes";
import { LocalDiskStorage } from "#storage/index";

const long = (length: number) => "Word ".repeat(length / 5).slice(0, length);

/**
 * 50 links with 5 URLs, one 1000-character text and a 70-character title each:
 * the budget case of tests/integration/newsletter.test.ts ("a full folder");
 * longer titles on every item clip with the answer links
 * (docs/decisions/0163-newsletter-size-with-answer-links.md).
 */
const fullFolder: NewsletterItem[] = Array.from({ length: 50 }, (_, index) => ({
  id: index + 1,
  folderId: 7,
  type: "link",
  title: `Item ${index + 1} ${long(62)}`,
  urls: Array.from(
    { length: 5 },
    (_, at) => `https://www.example.org/a/fairly/long/path/${index}/${at}?utm_source=newsletter`,
  ),
  filePaths: [],
  fileNames: [],
  fileSizes: [],
  mimeTypes: [],
  thumbnailPaths: [],
  addComment: index % 2 === 0,
  commentText: index % 2 === 0 ? long(1000) : null,
  askQuestion: index % 2 === 1,
  questionText: index % 2 === 1 ? long(1000) : null,
  note: null,
  responseExpectation: "expecting",
  sortOrder: index,
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
}));

const headerBytes = { content: Buffer.from("fake png bytes"), contentType: "image/png" };

function render(branding: NewsletterBranding, items = fullFolder) {
  return renderNewsletter(
    {
      folder: { id: 7, name: "Family", personalSignoff: "Love, Ada" },
      sender: { firstName: "Ada", lastName: "Lovelace", email: "ada@example.com" },
      items,
      branding,
    },
    branding.headerImage ? headerBytes : null,
  );
}

const recipient = {
  email: "mum@example.com",
  unsubscribeUrl: "https://thoughtfully.test/unsubscribe?folder=7&token=t0k",
  // As long as a real one (`answerUrl` of app/modules/recipients/recipient-links.server.ts, out of emails/'s reach).
  answerUrlFor: (itemId: number) =>
    `https://thoughtfully.test/a/lfls.${itemId.toString(36)}.${"x".repeat(22)}`,
};

describe("newsletter templates", () => {
  for (const template of NEWSLETTER_TEMPLATES) {
    it(`${template}: a full folder with branding stays under Gmail's clipping size`, () => {
      const rendered = render({
        template,
        accentColor: "#7c2d12",
        headerImage: { width: 1200, height: 300 },
      });
      const { html } = personalize(rendered, recipient);
      console.info(`${template}: ${Buffer.byteLength(html)} bytes of HTML with answer links`);
      expect(Buffer.byteLength(html)).toBeLessThan(GMAIL_CLIP_BYTES);
      expect(html).toContain(`src="cid:${HEADER_IMAGE_CID}"`);
      expect(html).toContain(">Unsubscribe</a>");
      expect(html.match(/>♥ Send Ada a heart or a note<\/a>/g)).toHaveLength(fullFolder.length);
    });
  }

  it("look different from each other", () => {
    const htmls = NEWSLETTER_TEMPLATES.map(
      (template) =>
        render({ template, accentColor: null, headerImage: null }, fullFolder.slice(0, 1)).html,
    );
    expect(new Set(htmls).size).toBe(NEWSLETTER_TEMPLATES.length);
  });

  it("puts the accent colour in the styles, and nothing that is not a colour", () => {
    const accented = render(
      { template: "classic", accentColor: "#7c2d12", headerImage: null },
      fullFolder.slice(0, 1),
    );
    expect(accented.html).toContain("#7c2d12");
    const crafted = render(
      { template: "classic", accentColor: "red;}</style><script>", headerImage: null },
      fullFolder.slice(0, 1),
    );
    expect(crafted.html).not.toContain("<script>");
    expect(crafted.html).not.toContain("red;}");
  });

  it("attaches the header image once, inline by cid, before the photos and files", async () => {
    const rendered = render(
      { template: "postcard", accentColor: "#1e3a8a", headerImage: { width: 600, height: 150 } },
      fullFolder.slice(0, 1),
    );
    expect(rendered.totalBytes).toBeGreaterThan(rendered.htmlBytes + headerBytes.content.length);
    // The item has no stored files: only the header image, which lives in the rendering.
    const attachments = await attachmentsFor(rendered, new LocalDiskStorage(os.tmpdir()));
    expect(attachments).toEqual([
      {
        filename: "header.png",
        contentType: "image/png",
        content: headerBytes.content,
        cid: HEADER_IMAGE_CID,
        contentDisposition: "inline",
      },
    ]);
    // The plain-text part has no picture to show.
    expect(rendered.text).not.toContain(HEADER_IMAGE_CID);
  });
});

describe("the bodies' transfer encoding, chosen once per send", () => {
  const classic: NewsletterBranding = { template: "classic", accentColor: null, headerImage: null };

  it("is quoted-printable for mostly Latin text, as nodemailer would choose", () => {
    expect(render(classic).textEncoding).toBe("quoted-printable");
  });

  it("is base64 when other characters outnumber the Latin letters", () => {
    const japanese = fullFolder.map((item) => ({
      ...item,
      title: "家族の写真".repeat(40),
      commentText: "今日はとても良い天気でした。".repeat(200),
      addComment: true,
    }));
    expect(render(classic, japanese).textEncoding).toBe("base64");
  });
});
