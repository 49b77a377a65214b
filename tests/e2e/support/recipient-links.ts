import crypto from "node:crypto";

/**
 * A recipient's signed links, signed with the e2e server's SESSION_SECRET
 * exactly as app/modules/recipients/recipient-links.server.ts signs them, so
 * a test opens a recipient's pages without first mailing them.
 */
function sign(message: string) {
  return crypto
    .createHmac("sha256", process.env.E2E_SESSION_SECRET!)
    .update(message)
    .digest("base64url");
}

const packed = (id: number, email: string) => Buffer.from(`${id}:${email}`).toString("base64url");

export function unsubscribePath(folderId: number, email: string) {
  const token = sign(`unsubscribe:${folderId}:${email}`);
  return `/unsubscribe?${new URLSearchParams({ folder: String(folderId), email, token })}`;
}

export function resubscribePath(folderId: number, email: string) {
  const token = sign(`resubscribe:${folderId}:${email}`);
  return `/resubscribe?${new URLSearchParams({ email, folder: String(folderId), token })}`;
}

export function dontAskAgainPath(email: string) {
  return `/dont-ask-again?${new URLSearchParams({ email, token: sign(`dont-ask-again:${email}`) })}`;
}

export function webVersionPath(ledgerId: number, email: string) {
  return `/v/${packed(ledgerId, email)}.${sign(`issue-web:${ledgerId}:${email}`)}`;
}

export function answerPath(copyId: number, itemId: number) {
  const signature = sign(`answer:${copyId}:${itemId}`).slice(0, 22);
  return `/a/${copyId.toString(36)}.${itemId.toString(36)}.${signature}`;
}

export function welcomePath(folderId: number, email: string, answer?: "yes" | "no") {
  const code = `${packed(folderId, email)}.${sign(`welcome:${folderId}:${email}`)}`;
  return `/w/${code}${answer ? `?answer=${answer}` : ""}`;
}

export function archivePath(folderId: number, email: string) {
  return `/issues/${packed(folderId, email)}.${sign(`archive:${folderId}:${email}`)}`;
}
