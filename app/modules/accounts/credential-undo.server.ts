import { and, eq } from "drizzle-orm";
import { apiTokens, users } from "#db/schema";
import { db } from "~/platform/db.server";
import { refuseMailBurst } from "~/platform/mail-limits.server";
import { recordSecurityEvent } from "~/platform/security-events.server";
import { requestPasswordReset } from "./accounts.server";
import { readUndoToken, type UndoLink } from "./credential-notices.server";
import { removePasskey } from "./passkeys.server";
import { revokeUserSessions } from "./session.server";
import { disableTwoFactor, twoFactorState } from "./two-factor.server";

/**
 * "It was not me", from a credential notice's link: the added credential
 * goes (the passkey, the token, or two-factor sign-in if it is still the
 * enrolment the notice named), every session ends, and a reset link goes to
 * the account's address so the owner can evict everyone else.
 * docs/decisions/0109-credential-change-notices.md.
 */
export function readUndoLink(token: string) {
  const link = readUndoToken(token);
  if (!link) return null;
  const user = db.select().from(users).where(eq(users.id, link.user)).get();
  return user ? { link, user } : null;
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

/** Undoes the change; says whether a reset link could be sent now (the mail limits apply). */
export async function undoCredentialChange(request: Request, token: string) {
  const found = readUndoLink(token);
  if (!found) return null;
  const { link, user } = found;
  const removed = removeAddedCredential(user.id, link);
  const sessionsEnded = revokeUserSessions(user.id);
  const refused = await refuseMailBurst("password-reset", request, user.email);
  if (!refused) requestPasswordReset(user.email);
  recordSecurityEvent(request, {
    eventType: "suspicious_activity",
    severity: "high",
    userId: user.id,
    responseStatus: 200,
    details: { reason: "credential_change_undone", change: link.kind, removed, sessionsEnded },
  });
  return { removed, resetLinkSent: !refused, email: user.email };
}
