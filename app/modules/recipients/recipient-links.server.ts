import crypto from "node:crypto";
import { env } from "~/platform/env.server";

/**
 * Signed links for recipients, who have no account: the HMAC (SESSION_SECRET)
 * over the folder and the lower-cased address is the only proof a request
 * needs. Nothing is stored per link, so every e-mail carries a working link
 * for as long as the secret stays the same; rotating SESSION_SECRET
 * invalidates every link already sent.
 *
 * The purposes are prefixed ("unsubscribe:", "resubscribe:", "dont-ask-again:")
 * so a token made for one can never be used for another.
 */
function sign(message: string) {
  return crypto.createHmac("sha256", env.SESSION_SECRET).update(message).digest("base64url");
}

function constantTimeEqual(expected: string, given: string) {
  const left = Buffer.from(expected);
  const right = Buffer.from(given);
  return left.length === right.length && crypto.timingSafeEqual(left, right);
}

function normalize(email: string) {
  return email.trim().toLowerCase();
}

export function unsubscribeToken(folderId: number, email: string) {
  return sign(`unsubscribe:${folderId}:${normalize(email)}`);
}

export function isValidUnsubscribeToken(folderId: number, email: string, token: string) {
  return constantTimeEqual(unsubscribeToken(folderId, email), token);
}

/** The recipient's link (in the e-mail body and in List-Unsubscribe, where RFC 8058 posts to it). */
export function unsubscribeUrl(folderId: number, email: string) {
  const address = normalize(email);
  const query = new URLSearchParams({
    folder: String(folderId),
    email: address,
    token: unsubscribeToken(folderId, address),
  });
  return `${env.APP_URL}/unsubscribe?${query}`;
}

/**
 * The short link in the e-mail body: the same signed link, with folder and
 * address packed into one code, so the body never shows the recipient's
 * address in a URL (spam filters score that: GB_CUSTOM_HTM_URI). `/u/<code>`
 * only redirects to the full /unsubscribe link; a GET changes nothing.
 */
export function compactUnsubscribeUrl(folderId: number, email: string) {
  const address = normalize(email);
  const packed = Buffer.from(`${folderId}:${address}`).toString("base64url");
  return `${env.APP_URL}/u/${packed}.${unsubscribeToken(folderId, address)}`;
}

/** The full /unsubscribe link behind a short code, or null when the code is not ours. */
export function expandUnsubscribeCode(code: string) {
  const [packed, token] = code.split(".");
  if (!packed || !token) return null;
  const decoded = Buffer.from(packed, "base64url").toString("utf8");
  const separator = decoded.indexOf(":");
  const folderId = Number(decoded.slice(0, separator));
  const email = decoded.slice(separator + 1);
  if (!Number.isSafeInteger(folderId) || folderId <= 0 || !email) return null;
  return isValidUnsubscribeToken(folderId, email, token) ? unsubscribeUrl(folderId, email) : null;
}

/** The bare address of MAIL_FROM ("Thoughtfully <hello@example.com>" → "hello@example.com"). */
function mailFromAddress() {
  const angled = /<([^>]+)>/.exec(env.MAIL_FROM);
  return (angled?.[1] ?? env.MAIL_FROM).trim();
}

/**
 * The mailto: half of List-Unsubscribe, for mail apps that unsubscribe by
 * sending an e-mail (Apple Mail among them). It goes to the MAIL_FROM address
 * with the subject `unsubscribe-<folderId>-<token>`. The address is not in it:
 * whoever receives that mailbox hands the message to /webhooks/inbound-email
 * (app/modules/recipients/inbound-email.server.ts), which finds the recipient the token was
 * made for. Mail apps that support RFC 8058 post to the https link instead.
 */
export function unsubscribeMailto(folderId: number, email: string) {
  const subject = `unsubscribe-${folderId}-${unsubscribeToken(folderId, email)}`;
  return `mailto:${mailFromAddress()}?subject=${encodeURIComponent(subject)}`;
}

const MAILTO_SUBJECT = /unsubscribe-(\d{1,15})-([A-Za-z0-9_-]{43})/;

/** The folder and token in a subject written by unsubscribeMailto (a "Re:" or other words around it allowed). */
export function readUnsubscribeSubject(subject: string) {
  const match = MAILTO_SUBJECT.exec(subject);
  if (!match) return null;
  const folderId = Number(match[1]);
  return Number.isSafeInteger(folderId) && folderId > 0 ? { folderId, token: match[2]! } : null;
}

export function resubscribeToken(email: string, folderId: number) {
  return sign(`resubscribe:${folderId}:${normalize(email)}`);
}

export function isValidResubscribeToken(email: string, folderId: number, token: string) {
  return constantTimeEqual(resubscribeToken(email, folderId), token);
}

/** The link of the re-subscription request e-mail; opening it changes nothing until its button is pressed. */
export function resubscribeUrl(email: string, folderId: number) {
  const address = normalize(email);
  const query = new URLSearchParams({
    email: address,
    folder: String(folderId),
    token: resubscribeToken(address, folderId),
  });
  return `${env.APP_URL}/resubscribe?${query}`;
}

/**
 * "Don't ask me again" in a re-subscription request: signed over the address
 * alone, because the refusal is the address's, whichever sender asked, and
 * must keep working after that sender's folder is deleted.
 */
export function dontAskAgainToken(email: string) {
  return sign(`dont-ask-again:${normalize(email)}`);
}

export function dontAskAgainUrl(email: string) {
  const address = normalize(email);
  const query = new URLSearchParams({ email: address, token: dontAskAgainToken(address) });
  return `${env.APP_URL}/dont-ask-again?${query}`;
}

/** The address of a valid "Don't ask me again" link (or a posted copy of it), else null. */
export function readDontAskAgainLink(source: { get(name: string): unknown }) {
  const text = (name: string) => {
    const value = source.get(name);
    return typeof value === "string" ? value.trim() : "";
  };
  const email = normalize(text("email"));
  const token = text("token");
  if (!email || email.length > 320 || !email.includes("@") || !token || token.length > 100) {
    return null;
  }
  return constantTimeEqual(dontAskAgainToken(email), token) ? { email, token } : null;
}

/**
 * Reads folder, email and token from a link's query (or a posted copy of it).
 * Returns null unless all three are present, the folder is a positive whole
 * number and the address looks like one; the token is checked by the caller.
 */
export function readLinkParams(source: { get(name: string): unknown }) {
  const text = (name: string) => {
    const value = source.get(name);
    return typeof value === "string" ? value.trim() : "";
  };
  const folderText = text("folder");
  const email = normalize(text("email"));
  const token = text("token");
  const folderId = /^\d{1,15}$/.test(folderText) ? Number(folderText) : Number.NaN;
  if (!Number.isSafeInteger(folderId) || folderId <= 0) return null;
  if (!email || email.length > 320 || !email.includes("@") || !token || token.length > 100) {
    return null;
  }
  return { folderId, email, token };
}

/**
 * Links tied to one recipient's copy of one sent issue (the send ledger's id):
 * the web version ("web"), the open image ("open") and the click redirect
 * ("click"). The code packs the ledger and the address, so the body never
 * shows the address in a URL; each purpose signs differently, so a link made
 * for one never works for another.
 */
export type IssueLinkPurpose = "web" | "open" | "click";

function issueLinkToken(purpose: IssueLinkPurpose, ledgerId: number, email: string) {
  return sign(`issue-${purpose}:${ledgerId}:${normalize(email)}`);
}

export function issueLinkCode(purpose: IssueLinkPurpose, ledgerId: number, email: string) {
  const address = normalize(email);
  const packed = Buffer.from(`${ledgerId}:${address}`).toString("base64url");
  return `${packed}.${issueLinkToken(purpose, ledgerId, address)}`;
}

/** The ledger and address of a valid code for this purpose, else null. */
export function readIssueLinkCode(purpose: IssueLinkPurpose, code: string) {
  if (code.length > 800) return null;
  const [packed, token, extra] = code.split(".");
  if (!packed || !token || extra !== undefined) return null;
  const decoded = Buffer.from(packed, "base64url").toString("utf8");
  const separator = decoded.indexOf(":");
  const ledgerText = decoded.slice(0, separator);
  const email = decoded.slice(separator + 1);
  if (!/^\d{1,15}$/.test(ledgerText) || !email || email.length > 320) return null;
  const ledgerId = Number(ledgerText);
  return constantTimeEqual(issueLinkToken(purpose, ledgerId, email), token)
    ? { ledgerId, email }
    : null;
}

/** "View in your browser": the issue as this recipient received it, without an account. */
export function webVersionUrl(ledgerId: number, email: string) {
  return `${env.APP_URL}/v/${issueLinkCode("web", ledgerId, email)}`;
}

/** The open image of a tracked copy (Premium senders only). */
export function openPixelUrl(ledgerId: number, email: string) {
  return `${env.APP_URL}/t/o/${issueLinkCode("open", ledgerId, email)}`;
}

/** A tracked copy's links go here with `url=` the item's address; only the issue's own addresses redirect. */
export function clickUrlBase(ledgerId: number, email: string) {
  return `${env.APP_URL}/t/c/${issueLinkCode("click", ledgerId, email)}?url=`;
}

/**
 * A recipient's link to answer one item of their copy of an issue (a heart or
 * a note, docs/decisions/0159-recipients-answer-back.md): bound to the copy
 * (the send ledger's recipient row, so the issue and the address) and to the
 * item. Every item of every e-mail carries one, so it is short: the two ids in
 * base 36 and 128 bits of the signature, which no one guesses through a
 * rate-limited page (Gmail clips an HTML part above about 102 KB).
 */
const ANSWER_SIGNATURE_CHARS = 22;

function answerSignature(copyId: number, itemId: number) {
  return sign(`answer:${copyId}:${itemId}`).slice(0, ANSWER_SIGNATURE_CHARS);
}

export function answerLinkCode(copyId: number, itemId: number) {
  return `${copyId.toString(36)}.${itemId.toString(36)}.${answerSignature(copyId, itemId)}`;
}

/** The copy and item of a valid answer code, else null. */
export function readAnswerLinkCode(code: string) {
  if (code.length > 60) return null;
  const match = /^([0-9a-z]{1,10})\.([0-9a-z]{1,10})\.([A-Za-z0-9_-]+)$/.exec(code);
  if (!match) return null;
  const copyId = Number.parseInt(match[1]!, 36);
  const itemId = Number.parseInt(match[2]!, 36);
  if (!Number.isSafeInteger(copyId) || !Number.isSafeInteger(itemId)) return null;
  if (copyId <= 0 || itemId <= 0) return null;
  // One spelling per code: no leading zeros.
  if (match[1] !== copyId.toString(36) || match[2] !== itemId.toString(36)) return null;
  return constantTimeEqual(answerSignature(copyId, itemId), match[3]!) ? { copyId, itemId } : null;
}

/** The answer page of one item for one recipient's copy. */
export function answerUrl(copyId: number, itemId: number) {
  return `${env.APP_URL}/a/${answerLinkCode(copyId, itemId)}`;
}

/**
 * A link bound to one folder and one address, signed for one purpose alone, with the address
 * packed into the code so it never shows in a URL: the recipient's archive and the welcome's
 * answers. Each outlives any row: it is the folder's and the address's for as long as both are.
 */
type FolderAddressPurpose = "archive" | "welcome";

function folderAddressToken(purpose: FolderAddressPurpose, folderId: number, email: string) {
  return sign(`${purpose}:${folderId}:${normalize(email)}`);
}

function folderAddressCode(purpose: FolderAddressPurpose, folderId: number, email: string) {
  const address = normalize(email);
  const packed = Buffer.from(`${folderId}:${address}`).toString("base64url");
  return `${packed}.${folderAddressToken(purpose, folderId, address)}`;
}

/** The folder and address of a valid code for `purpose`, else null. */
function readFolderAddressCode(purpose: FolderAddressPurpose, code: string) {
  if (code.length > 800) return null;
  const [packed, token, extra] = code.split(".");
  if (!packed || !token || extra !== undefined) return null;
  const decoded = Buffer.from(packed, "base64url").toString("utf8");
  const separator = decoded.indexOf(":");
  const folderText = decoded.slice(0, separator);
  const email = decoded.slice(separator + 1);
  if (!/^[1-9]\d{0,14}$/.test(folderText) || !email || email.length > 320) return null;
  const folderId = Number(folderText);
  return constantTimeEqual(folderAddressToken(purpose, folderId, email), token)
    ? { folderId, email }
    : null;
}

/** "All issues of <folder>": one recipient's archive (docs/decisions/0214-the-recipients-archive.md). */
export function archiveCode(folderId: number, email: string) {
  return folderAddressCode("archive", folderId, email);
}

export function readArchiveCode(code: string) {
  return readFolderAddressCode("archive", code);
}

export function archiveUrl(folderId: number, email: string) {
  return `${env.APP_URL}/issues/${archiveCode(folderId, email)}`;
}

/** A new recipient's link from their welcome (docs/decisions/0208-a-welcome-before-the-first-issue.md). */
export function welcomeLinkCode(folderId: number, email: string) {
  return folderAddressCode("welcome", folderId, email);
}

export function readWelcomeLinkCode(code: string) {
  return readFolderAddressCode("welcome", code);
}

/** The welcome page, opened on one answer ("yes" for "Sounds lovely", "no" for "Not for me"). */
export function welcomeUrl(folderId: number, email: string, answer: "yes" | "no") {
  return `${env.APP_URL}/w/${welcomeLinkCode(folderId, email)}?answer=${answer}`;
}
