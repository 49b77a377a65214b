import { createElement } from "react";
import { CredentialChange } from "#emails/credential-change";
import { renderEmail } from "#emails/render.server";
import { runInBackground } from "~/platform/background-work.server";
import { formatDateTime } from "~/platform/dates";
import { env } from "~/platform/env.server";
import { refuseMailBurst } from "~/platform/mail-limits.server";
import { sendEmail } from "~/platform/mailer.server";
import { clientIp, userAgent } from "~/platform/request-info.server";
import { readSignedPayload, signPayload } from "~/platform/signed-payload.server";
import { z } from "~/platform/zod";

/**
 * The owner is told whenever a way into the account is added or removed
 * (passkeys, API tokens, two-factor sign-in, recovery codes, a password
 * reset), with a signed link to a one-button page that undoes it: the added
 * credential goes, every session ends and a reset link is mailed.
 * docs/decisions/0109-credential-change-notices.md.
 */
export const CREDENTIAL_CHANGES = [
  "passkey-added",
  "passkey-removed",
  "api-token-created",
  "api-token-revoked",
  "two-factor-on",
  "two-factor-off",
  "recovery-codes-replaced",
  "password-reset",
] as const;
export type CredentialChangeKind = (typeof CREDENTIAL_CHANGES)[number];

export type CredentialChangeNotice = {
  kind: CredentialChangeKind;
  /** The passkey's or token's name, shown in the e-mail. */
  name?: string;
  /** What the undo link removes: a passkey id, a token id, the enrolment time of two-factor. */
  credential?: string;
  /** For a reset: how many passkeys it removed. */
  passkeysRemoved?: number;
};

export const UNDO_LINK_TTL_MS = 7 * 24 * 60 * 60 * 1000;
const UNDO_PURPOSE = "undo-credential-change";

const UndoSchema = z.object({
  user: z.number().int(),
  kind: z.enum(CREDENTIAL_CHANGES),
  credential: z.string().nullable(),
  issuedAt: z.number(),
});
export type UndoLink = z.infer<typeof UndoSchema>;

export function undoToken(userId: number, notice: CredentialChangeNotice, now = Date.now()) {
  return signPayload(UNDO_PURPOSE, {
    user: userId,
    kind: notice.kind,
    credential: notice.credential ?? null,
    issuedAt: now,
  } satisfies UndoLink);
}

/** The change an undo link names, or null when it is not one of ours or is older than 7 days. */
export function readUndoToken(token: string, now = Date.now()): UndoLink | null {
  const link = readSignedPayload(UNDO_PURPOSE, token, UndoSchema);
  return link && now - link.issuedAt < UNDO_LINK_TTL_MS ? link : null;
}

/** Whether undoing removes something that was added, besides securing the account. */
export function undoRemovesCredential(kind: CredentialChangeKind) {
  return kind === "passkey-added" || kind === "api-token-created" || kind === "two-factor-on";
}

function quoted(name: string | undefined) {
  return name ? ` “${name}”` : "";
}

export function describeChange(notice: CredentialChangeNotice) {
  const name = quoted(notice.name);
  switch (notice.kind) {
    case "passkey-added":
      return {
        subject: "A passkey was added to your account",
        summary: `A passkey${name} was added to your Thoughtfully account. It signs in without your password.`,
      };
    case "passkey-removed":
      return {
        subject: "A passkey was removed from your account",
        summary: `The passkey${name} was removed from your Thoughtfully account.`,
      };
    case "api-token-created":
      return {
        subject: "An API token was created for your account",
        summary: `An API token${name} was created. Programs holding it can reach your folders.`,
      };
    case "api-token-revoked":
      return {
        subject: "An API token was revoked",
        summary: `The API token${name} was revoked.`,
      };
    case "two-factor-on":
      return {
        subject: "Two-factor sign-in was turned on",
        summary:
          "Two-factor sign-in was turned on for your Thoughtfully account: log-ins now ask for a code from an authenticator app.",
      };
    case "two-factor-off":
      return {
        subject: "Two-factor sign-in was turned off",
        summary:
          "Two-factor sign-in was turned off for your Thoughtfully account: log-ins now ask only for the password.",
      };
    case "recovery-codes-replaced":
      return {
        subject: "New recovery codes were made",
        summary: "New recovery codes were made for your account; the old ones stopped working.",
      };
    case "password-reset": {
      const removed = notice.passkeysRemoved ?? 0;
      return {
        subject: "Your password was reset",
        summary: `The password of your Thoughtfully account was reset. Every session was signed out, every API token revoked and every trusted device forgotten${removed > 0 ? `; ${removed === 1 ? "one passkey was" : `${removed} passkeys were`} removed` : ""}.`,
      };
    }
  }
}

/**
 * Mails the notice after the answer (never delaying it); limited per account
 * like the other account e-mails, so a burst of changes cannot flood the inbox.
 */
export async function noticeCredentialChange(
  request: Request,
  user: { id: number; email: string; firstName: string | null; timeZone: string },
  notice: CredentialChangeNotice,
  now = new Date(),
) {
  const refused = await refuseMailBurst("security-notice", request, user.email);
  if (refused) {
    console.warn(`Credential notice for user ${user.id} (${notice.kind}) not sent: over the limit`);
    return;
  }
  const { subject, summary } = describeChange(notice);
  const when = `${formatDateTime(now, user.timeZone)} (${user.timeZone})`;
  const where =
    [clientIp(request) ?? "an unknown address", userAgent(request)].filter(Boolean).join(", ") ||
    "unknown";
  const undoUrl = `${env.APP_URL}/account/undo?${new URLSearchParams({ token: undoToken(user.id, notice, now.getTime()) })}`;
  const undoLabel = undoRemovesCredential(notice.kind)
    ? "Undo it and secure my account"
    : "Secure my account";
  const { html, text } = renderEmail(
    createElement(CredentialChange, {
      firstName: user.firstName,
      subject,
      summary,
      when,
      where,
      undoUrl,
      undoLabel,
    }),
  );
  runInBackground("credential notice e-mail", () =>
    sendEmail({ to: user.email, subject, html, text }),
  );
}
