import { and, eq } from "drizzle-orm";
import { apiTokens, undoLinkUses, users } from "#db/schema";
import {
  readUndoToken,
  UNDO_LINK_TTL_MS,
  type UndoLink,
} from "~/modules/auth/credential-notices.server";
import { removePasskey } from "~/modules/auth/passkeys.server";
import { hashToken, revokeUserSessions } from "~/modules/auth/session.server";
import { disableTwoFactor, twoFactorState } from "~/modules/auth/two-factor.server";
import { formatDateTime } from "~/platform/dates";
import { db, writeTransaction } from "~/platform/db.server";
import { refuseMailBurst } from "~/platform/mail-limits.server";
import { recordSecurityEvent } from "~/platform/security-events.server";
import { requestPasswordReset } from "./accounts.server";

/**
 * "It was not me", from a credential notice's link: the added credential
 * goes (the passkey, the token, or two-factor sign-in if it is still the
 * enrolment the notice named), every session ends, and a reset link goes to
 * the account's address so the owner can evict everyone else. A link acts
 * once; used again, it says what it did and when.
 * docs/decisions/0109-credential-change-notices.md,
 * docs/decisions/0176-undo-links-work-once.md.
 */
export function readUndoLink(token: string) {
  const link = readUndoToken(token);
  if (!link) return null;
  const user = db.select().from(users).where(eq(users.id, link.user)).get();
  return user ? { link, user } : null;
}

/** When a link was used, and whether its credential went then. */
export type UndoLinkUse = { usedAt: Date; credentialRemoved: boolean };

/** The earlier use of a link, or null while it is unused. */
export function undoLinkUse(token: string): UndoLinkUse | null {
  return (
    db
      .select({ usedAt: undoLinkUses.usedAt, credentialRemoved: undoLinkUses.credentialRemoved })
      .from(undoLinkUses)
      .where(eq(undoLinkUses.linkHash, hashToken(token)))
      .get() ?? null
  );
}

/** "This link was already used on Sat 28 Nov 2026, 14:05: …", in the owner's time zone. */
export function alreadyUsedMessage(use: UndoLinkUse, timeZone: string) {
  const when = formatDateTime(use.usedAt, timeZone);
  return use.credentialRemoved
    ? `This link was already used on ${when}: the change was undone and every device signed out.`
    : `This link was already used on ${when}: every device was signed out.`;
}

function removeAddedCredential(userId: number, link: UndoLink) {
  if (!link.credential) return false;
  switch (link.kind) {
    case "passkey-added":
      return removePasskey(userId, link.credential);
    case "api-token-created":
      return (
        db
          .delete(apiTokens)
          .where(and(eq(apiTokens.userId, userId), eq(apiTokens.id, Number(link.credential))))
          .run().changes > 0
      );
    case "two-factor-on": {
      const state = twoFactorState(userId);
      if (state.status !== "on" || String(state.enabledAt.getTime()) !== link.credential) {
        return false;
      }
      disableTwoFactor(userId);
      return true;
    }
    default:
      return false;
  }
}

/**
 * Undoes the change unless the link was used before, in one immediate
 * transaction: its write lock is taken at BEGIN, so of two posts of one link
 * only the first finds it unused, and the primary key refuses a second row.
 */
function undoOnce(token: string, userId: number, link: UndoLink, now: Date) {
  return writeTransaction((tx) => {
    const earlier = undoLinkUse(token);
    if (earlier) return { earlier };
    const removed = removeAddedCredential(userId, link);
    tx.insert(undoLinkUses)
      .values({
        linkHash: hashToken(token),
        userId,
        usedAt: now,
        credentialRemoved: removed,
        expiresAt: new Date(link.issuedAt + UNDO_LINK_TTL_MS),
      })
      .run();
    return { removed, sessionsEnded: revokeUserSessions(userId) };
  });
}

export type UndoOutcome =
  | { status: "undone"; removed: boolean; resetLinkSent: boolean; email: string }
  | { status: "used"; message: string };

/**
 * Undoes the change the first time; says whether a reset link could be sent
 * now (the mail limits apply). Null for a link that is not one of ours.
 */
export async function undoCredentialChange(
  request: Request,
  token: string,
  now = new Date(),
): Promise<UndoOutcome | null> {
  const found = readUndoLink(token);
  if (!found) return null;
  const { link, user } = found;
  const outcome = undoOnce(token, user.id, link, now);
  if (outcome.earlier) {
    return { status: "used", message: alreadyUsedMessage(outcome.earlier, user.timeZone) };
  }
  const { removed, sessionsEnded } = outcome;
  const refused = await refuseMailBurst("password-reset", request, user.email);
  if (!refused) requestPasswordReset(user.email);
  recordSecurityEvent(request, {
    eventType: "suspicious_activity",
    severity: "high",
    userId: user.id,
    responseStatus: 200,
    details: { reason: "credential_change_undone", change: link.kind, removed, sessionsEnded },
  });
  return { status: "undone", removed, resetLinkSent: !refused, email: user.email };
}
