import { clientIp } from "~/platform/request-info.server";
import { recordSecurityEvent } from "~/platform/security-events.server";
import type { z } from "~/platform/zod";
import { noticeCredentialChange } from "./credential-notices.server";
import { enrolmentNeedsEmail, requireRecentReauthentication } from "./reauthentication.server";
import { getCurrentSession, type SessionUser } from "./session.server";
import {
  confirmEnrolment,
  disableTwoFactor,
  recordSuccessfulSecondFactor,
  replaceRecoveryCodes,
  startEnrolment,
  takeSecondFactorAttempt,
  twoFactorState,
  verifySecondFactor,
} from "./two-factor.server";
import type { TwoFactorSettingsSchema } from "./two-factor-validation";

/**
 * The two-factor settings sequence of Profile Settings: set up (confirmed by
 * a first code), new recovery codes, turning it off. Setting up asks for a
 * session that proved who it is just now (by e-mail for an admin's first
 * second factor); new codes and turning off ask for a current code, which is
 * that proof. Every code is throttled, every step recorded as a security
 * event, and the owner told of each change
 * (docs/decisions/0107-reauthentication-window.md, 0109-credential-change-notices.md).
 */
export type TwoFactorChange = z.output<typeof TwoFactorSettingsSchema>;

export type TwoFactorChangeOutcome =
  | { outcome: "started" }
  | { outcome: "throttled" }
  | { outcome: "wrong-code" }
  | { outcome: "recovery-codes"; recoveryCodes: string[] }
  | { outcome: "turned-off" };

/** Setting up (not yet on): only for a session that proved who it is just now, else the redirect to prove it. */
export async function requireTwoFactorSetUpProof(request: Request, userId: number) {
  const session = await getCurrentSession(request);
  if (!session) throw new Error("requireTwoFactorSetUpProof needs a signed-in request");
  requireRecentReauthentication(request, session, {
    redirectTo: "/profile/two-factor",
    emailOnly: enrolmentNeedsEmail(userId),
  });
}

export async function changeTwoFactorSettings(
  request: Request,
  user: SessionUser,
  change: TwoFactorChange,
): Promise<TwoFactorChangeOutcome> {
  if (change.intent === "start" || change.intent === "confirm") {
    await requireTwoFactorSetUpProof(request, user.id);
  }
  if (change.intent === "start") {
    await startEnrolment(user.id);
    return { outcome: "started" };
  }
  const { intent, code } = change;
  const ip = clientIp(request);
  const attempt = await takeSecondFactorAttempt(user.id, ip);
  if (!attempt.allowed) {
    recordSecurityEvent(request, {
      eventType: "rate_limit_exceeded",
      severity: "medium",
      userId: user.id,
      responseStatus: 429,
      details: { reason: "second_factor_throttled" },
    });
    return { outcome: "throttled" };
  }
  const wrongCode = () => {
    recordSecurityEvent(request, {
      eventType: "two_factor_failed",
      severity: "low",
      userId: user.id,
      responseStatus: 400,
      details: { step: intent },
    });
    return { outcome: "wrong-code" } as const;
  };

  if (intent === "confirm") {
    const recoveryCodes = await confirmEnrolment(user.id, code);
    if (!recoveryCodes) return wrongCode();
    await recordSuccessfulSecondFactor(user.id, ip);
    recordSecurityEvent(request, {
      eventType: "two_factor_enrolled",
      severity: "low",
      userId: user.id,
      responseStatus: 200,
    });
    const state = twoFactorState(user.id);
    await noticeCredentialChange(request, user, {
      kind: "two-factor-on",
      credential: state.status === "on" ? String(state.enabledAt.getTime()) : undefined,
    });
    return { outcome: "recovery-codes", recoveryCodes };
  }

  const method = await verifySecondFactor(user.id, code);
  if (!method) return wrongCode();
  await recordSuccessfulSecondFactor(user.id, ip);
  if (method === "recovery") {
    recordSecurityEvent(request, {
      eventType: "recovery_code_used",
      severity: "medium",
      userId: user.id,
      responseStatus: 200,
      details: { step: intent },
    });
  }
  if (intent === "new-recovery-codes") {
    await noticeCredentialChange(request, user, { kind: "recovery-codes-replaced" });
    return { outcome: "recovery-codes", recoveryCodes: replaceRecoveryCodes(user.id) };
  }
  disableTwoFactor(user.id);
  await noticeCredentialChange(request, user, { kind: "two-factor-off" });
  recordSecurityEvent(request, {
    eventType: "two_factor_disabled",
    severity: "medium",
    userId: user.id,
    responseStatus: 302,
  });
  return { outcome: "turned-off" };
}
