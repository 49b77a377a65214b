import type { NewsletterItem } from "#emails/newsletter";
import { personalize, renderNewsletter } from "#emails/newsletter.server";
import {
  NEWSLETTER_TEMPLATES,
  type NewsletterTemplate,
  TEMPLATE_LABELS,
} from "#emails/newsletter-themes";

/**
 * Thumbnails of the newsletter templates: each one the real renderer's e-mail
 * (the one every send uses) with a few sample items, so a thumbnail cannot
 * show a look the mail does not have (docs/decisions/0154-template-thumbnails-from-the-renderer.md).
 */
const SENDER = { firstName: "Sam", lastName: "Rivers", email: "sam@example.com" };
const FOLDER = { id: 0, name: "Family news", personalSignoff: "Love, Sam" };

function sampleItem(
  fields: Pick<NewsletterItem, "id" | "type" | "title"> & Partial<NewsletterItem>,
): NewsletterItem {
  return {
    folderId: FOLDER.id,
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
    sortOrder: fields.id,
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
    securityStatus: "safe",
    quarantineReason: null,
    missingFiles: [],
    createdAt: new Date(0),
    sentAt: null,
    ...fields,
  };
}

const ITEMS = [
  sampleItem({
    id: 1,
    type: "musing",
    title: "Sunday pancakes",
    note: "We tried Grandma's recipe at last. The first one stuck; the rest were perfect.",
  }),
  sampleItem({
    id: 2,
    type: "link",
    title: "A walk worth taking",
    urls: ["https://example.com/coast-path"],
    addComment: true,
    commentText: "Six miles of cliffs and one very good café.",
    askQuestion: true,
    questionText: "Shall we go in May?",
  }),
];

export type TemplateSample = {
  template: NewsletterTemplate;
  name: string;
  description: string;
  html: string;
};

/** Rendered once per look: rendering and inlining take tens of milliseconds. */
const rendered = new Map<string, string>();
const MAX_CACHED = 64;

function sampleHtml(template: NewsletterTemplate, accentColor: string | null) {
  const key = `${template}:${accentColor ?? ""}`;
  const cached = rendered.get(key);
  if (cached) return cached;
  const newsletter = renderNewsletter({
    folder: FOLDER,
    sender: SENDER,
    items: ITEMS,
    branding: { template, accentColor, headerImage: null },
  });
  const { html } = personalize(newsletter, {
    email: SENDER.email,
    unsubscribeUrl: "#",
    answerUrlFor: () => "#",
  });
  if (rendered.size >= MAX_CACHED) rendered.clear();
  rendered.set(key, html);
  return html;
}

/** Every template with sample content, in the sender's accent colour when they chose one. */
export function templateSamples(accentColor: string | null = null): TemplateSample[] {
  return NEWSLETTER_TEMPLATES.map((template) => ({
    template,
    ...TEMPLATE_LABELS[template],
    html: sampleHtml(template, accentColor),
  }));
}
