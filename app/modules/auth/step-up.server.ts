import { clientIp } from "~/platform/request-info.server";
import { recordSecurityEvent } from "~/platform/security-events.server";
import { type CurrentSession, raiseToSecondFactorSession } from "./session.server";
import {
  recordSuccessfulSecondFactor,
  takeSecondFactorAttempt,
  verifySecondFactor,
} from "./two-factor.server";

/**
 * A signed-in owner gives an authenticator or recovery code on this session
 * (the "step-up" before admin pages): throttled and checked as at log-in,
 * and on success the session is replaced by one signed in with that factor.
 * docs/decisions/0104-admin-needs-a-second-factor-session.md.
 */
export async function stepUpWithCode(request: Request, session: CurrentSession, code: string) {
  const userId = session.user.id;
  const ip = clientIp(request);
  const attempt = await takeSecondFactorAttempt(userId, ip);
  if (!attempt.allowed) {
    recordSecurityEvent(request, {
      eventType: "rate_limit_exceeded",
      severity: "medium",
      userId,
      sessionId: session.sessionId,
      responseStatus: 429,
      details: { reason: "second_factor_throttled", retryAfterSeconds: attempt.retryAfterSeconds },
    });
    return { status: "throttled" as const };
  }
  const factor = await verifySecondFactor(userId, code);
  if (!factor) {
    recordSecurityEvent(request, {
      eventType: "two_factor_failed",
      severity: "medium",
      userId,
      sessionId: session.sessionId,
      responseStatus: 400,
      details: { step: "step-up" },
    });
    return { status: "invalid" as const };
  }
  await recordSuccessfulSecondFactor(userId, ip);
  const method = factor === "totp" ? "totp" : "recovery-code";
  if (method === "recovery-code") {
    recordSecurityEvent(request, {
      eventType: "recovery_code_used",
      severity: "medium",
      userId,
      responseStatus: 302,
      details: { step: "step-up" },
    });
  }
  return {
    status: "raised" as const,
    method,
    cookie: await raiseToSecondFactorSession(request, session, method),
  };
}
