import crypto from "node:crypto";
import { createCookie, data, type UploadHandler } from "@remix-run/node";
import { isCrossSite } from "~/platform/cross-site.server";
import { CSRF_FIELD, type CsrfFailure } from "~/platform/csrf";
import { constantTimeEqual, tokenFor } from "~/platform/csrf-token.server";
import { keepSubmittedForm } from "~/platform/database-busy.server";
import { env } from "~/platform/env.server";
import { keptFields } from "~/platform/kept-fields.server";
import { isMemoryBudgetSpent, tryLaterResponse } from "~/platform/memory-budget.server";
import {
  FormFieldTooLargeError,
  isMultipartForm,
  MultipartRefusedError,
  readTextOnlyMultipartForm,
} from "~/platform/multipart.server";
import { replayWritesToPrimary } from "~/platform/replication.server";
import { endedSessionIdOf, getCurrentSession, signedOutRedirect } from "./session.server";

/**
 * Our own CSRF guard (docs/decisions/0009-csrf.md says why not remix-utils'): a token
 * derived with HMAC from the visitor's session (or, before login, from a
 * random cookie), accepted from the `csrf` form field or the X-CSRF-Token
 * header, compared in constant time, plus an Origin / Sec-Fetch-Site check.
 * Nothing is stored per token, so a token never runs out while its session lives.
 */
export const CSRF_HEADER = "X-CSRF-Token";

const anonymousCookie = createCookie(
  env.isHttps ? "__Host-thoughtfully_csrf" : "thoughtfully_csrf",
  {
    httpOnly: true,
    sameSite: "lax",
    path: "/",
    secure: env.isHttps,
    secrets: [env.SESSION_SECRET],
    maxAge: 60 * 60 * 24 * 30,
  },
);

async function anonymousBinding(request: Request): Promise<string | null> {
  const value = await anonymousCookie.parse(request.headers.get("Cookie"));
  return typeof value === "string" && value.length > 0 ? value : null;
}

async function bindingOf(request: Request): Promise<string | null> {
  const session = await getCurrentSession(request);
  if (session) return `session:${session.sessionId}`;
  const anonymous = await anonymousBinding(request);
  return anonymous ? `anonymous:${anonymous}` : null;
}

/**
 * The token for forms on this page. A first-time visitor also gets the cookie
 * their token is bound to (the returned header must be sent).
 */
export async function issueCsrfToken(
  request: Request,
  sessionId: string | null,
): Promise<{ token: string; setCookie: string | null }> {
  if (sessionId) return { token: tokenFor(`session:${sessionId}`), setCookie: null };
  const existing = await anonymousBinding(request);
  if (existing) return { token: tokenFor(`anonymous:${existing}`), setCookie: null };
  const fresh = crypto.randomBytes(24).toString("base64url");
  return {
    token: tokenFor(`anonymous:${fresh}`),
    setCookie: await anonymousCookie.serialize(fresh),
  };
}

/**
 * Throws a 403 when the request does not carry this visitor's token. For a
 * form of ours that had expired, the 403 carries what the user typed (never
 * passwords) and a fresh token, so the page can offer to submit again without
 * losing anything; a post from another site gets neither. A form whose token
 * checks out is kept for the request's busy answer, should it need one.
 */
export async function validateCsrf(request: Request, formData: FormData | null) {
  // First, on a LiteFS replica: the primary answers this write instead.
  await replayWritesToPrimary(request);
  const submitted =
    request.headers.get(CSRF_HEADER) ?? (formData?.get(CSRF_FIELD) as string | null) ?? null;
  const binding = await bindingOf(request);
  let reason: CsrfFailure["reason"] | null = null;
  if (isCrossSite(request)) reason = "cross_origin";
  else if (!submitted || typeof submitted !== "string") reason = "missing";
  else if (!binding || !constantTimeEqual(submitted, tokenFor(binding))) reason = "invalid";
  if (!reason) {
    // Checked: should the database be busy, the busy answer offers this form again.
    keepSubmittedForm(formData, submitted as string);
    return;
  }
  // A form made for a session that has since ended (signed out elsewhere): log in,
  // then back to the form with what was typed, not a "submit again" page.
  const endedSessionId = reason === "invalid" ? await endedSessionIdOf(request) : null;
  if (
    endedSessionId &&
    typeof submitted === "string" &&
    constantTimeEqual(submitted, tokenFor(`session:${endedSessionId}`))
  ) {
    throw await signedOutRedirect(request, formData ?? undefined);
  }
  const url = new URL(request.url);
  const session = await getCurrentSession(request);
  const fresh = await issueCsrfToken(request, session?.sessionId ?? null);
  const failure: CsrfFailure = {
    kind: "csrf",
    reason,
    // A post from another site is never offered again: its fields are the
    // other site's, and a fresh token would let one click carry them out.
    fields: reason === "cross_origin" ? [] : keptFields(formData),
    action: `${url.pathname}${url.search}`,
    token: fresh.token,
  };
  throw data(failure, {
    status: 403,
    headers: fresh.setCookie ? { "Set-Cookie": fresh.setCookie } : undefined,
  });
}

/**
 * A posted form, plain or multipart, read within a plain form's limits: a
 * multipart body to a route that also takes uploads is read as text fields
 * only (readTextOnlyMultipartForm), never whole. A field over its cap is a
 * 413 that names it; an unreadable form a 400.
 */
async function readPostedForm(request: Request): Promise<FormData> {
  if (!isMultipartForm(request)) return request.formData();
  try {
    return await readTextOnlyMultipartForm(request);
  } catch (error) {
    if (error instanceof FormFieldTooLargeError) throw data(error.message, { status: 413 });
    if (error instanceof MultipartRefusedError) throw data(error.message, { status: 400 });
    if (isMemoryBudgetSpent(error)) throw tryLaterResponse();
    throw error;
  }
}

/** Reads a posted form and checks its CSRF token: the first line of every action. */
export async function readProtectedForm(request: Request): Promise<FormData> {
  const formData = await readPostedForm(request);
  await validateCsrf(request, formData);
  return formData;
}

/**
 * An upload handler that checks the CSRF token before the first file's
 * bytes are read, with the fields read so far (CsrfInput is a form's first
 * field) or the X-CSRF-Token header: a post from another site, or without
 * this visitor's token, never streams a file to storage. The whole form is
 * checked again once read (a form with no file).
 */
export function checkingCsrfBeforeFiles(request: Request, handler: UploadHandler): UploadHandler {
  const fieldsSoFar = new FormData();
  let checked = false;
  return async (part) => {
    if (part.filename !== undefined && !checked) {
      await validateCsrf(request, fieldsSoFar);
      checked = true;
    }
    const value = await handler(part);
    if (part.filename === undefined && typeof value === "string")
      fieldsSoFar.append(part.name, value);
    return value;
  };
}
