import { attachmentsFor, personalize } from "#emails/newsletter.server";
import type { SessionUser } from "~/modules/auth/session.server";
import type { Folder } from "~/modules/folders/folders.server";
import {
  answerUrl,
  archiveUrl,
  compactUnsubscribeUrl,
  webVersionUrl,
} from "~/modules/recipients/recipient-links.server";
import { refuseMailBurst } from "~/platform/mail-limits.server";
import { sendEmail } from "~/platform/mailer.server";
import { storage } from "~/platform/storage.server";
import { buildNewsletter, unsentItems } from "./sending.server";

/**
 * The folder's next newsletter as it would be sent now (the send engine's
 * renderer), addressed to the sender: for the Email Preview page and the API,
 * and its test copy. Neither changes anything in the folder.
 */

/** Stand in for the recipient's own unsubscribe and answer links, in the preview and the test. */
const PREVIEW_UNSUBSCRIBE_URL = "#unsubscribe-preview";
const PREVIEW_ANSWER_URL = "#answer-preview";

/** Ids as long as those of the next sends' (up to 36^6 copies), for measuring a copy before it exists. */
const LATER_ID = 36 ** 5;

/**
 * The preview, and the size of the HTML a recipient's copy will carry (what
 * Gmail clips): their links are longer than the preview's stand-ins, and there
 * is one per item (docs/decisions/0163-newsletter-size-with-answer-links.md).
 */
export function renderPreview(folder: Folder, user: SessionUser) {
  const items = unsentItems(folder.id);
  if (items.length === 0) return null;
  const rendered = buildNewsletter(folder, user, items, { issueNote: folder.issueNote });
  const bodies = personalize(rendered, {
    email: user.email,
    unsubscribeUrl: PREVIEW_UNSUBSCRIBE_URL,
    answerUrlFor: () => PREVIEW_ANSWER_URL,
  });
  const copy = personalize(rendered, {
    email: user.email,
    unsubscribeUrl: compactUnsubscribeUrl(folder.id, user.email),
    webVersionUrl: webVersionUrl(LATER_ID, user.email),
    archiveUrl: archiveUrl(folder.id, user.email),
    answerUrlFor: (itemId) => answerUrl(LATER_ID, itemId),
  });
  return { rendered, ...bodies, copyHtmlBytes: Buffer.byteLength(copy.html) };
}

export type TestEmailOutcome =
  | { outcome: "sent" }
  | { outcome: "unverified" }
  | { outcome: "nothing-to-send" }
  | { outcome: "too-many"; retryMessage: string }
  | { outcome: "failed" };

/**
 * "Send me a test": the preview's copy, mailed to the sender alone. Changes
 * nothing in the folder (no ledger entry, no item marked sent).
 */
export async function sendTestEmail(
  request: Request,
  folder: Folder,
  user: SessionUser,
): Promise<TestEmailOutcome> {
  // An unconfirmed address may not be the user's: never mail it content.
  if (!user.emailVerified) return { outcome: "unverified" };
  const preview = renderPreview(folder, user);
  if (!preview) return { outcome: "nothing-to-send" };
  const refused = await refuseMailBurst("test-email", request, user.email);
  if (refused) return { outcome: "too-many", retryMessage: refused };
  const { rendered, html, text } = preview;
  try {
    await sendEmail({
      to: user.email,
      subject: `[Test] ${rendered.subject}`,
      html,
      text,
      replyTo: user.email,
      attachments: await attachmentsFor(rendered, storage),
    });
  } catch (error) {
    console.error(`Test e-mail for folder ${folder.id} failed:`, error);
    return { outcome: "failed" };
  }
  return { outcome: "sent" };
}
