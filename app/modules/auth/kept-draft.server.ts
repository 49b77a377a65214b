import crypto from "node:crypto";
import { deflateRawSync, inflateRawSync } from "node:zlib";
import type { SubmissionResult } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import { isCrossSite } from "~/platform/cross-site.server";
import { CSRF_FIELD } from "~/platform/csrf";
import { constantTimeEqual, tokenFor } from "~/platform/csrf-token.server";
import { env } from "~/platform/env.server";
import { parseMultipartForm } from "~/platform/multipart.server";
import { z } from "~/platform/zod";

/**
 * What was typed into a form that was sent after its session had ended
 * elsewhere rides, in this browser only, across the log-in and back to the
 * form (docs/decisions/0156-typed-input-survives-a-session-that-ended.md).
 * Kept only from a form of ours made for the session that ended (it carries
 * that session's CSRF token), never from another site; text fields only,
 * never files or anything named like a password or token; in an HttpOnly
 * cookie, signed and compressed, for 15 minutes. It only refills the form:
 * nothing is ever submitted for the person.
 */
const COOKIE_NAME = env.isHttps ? "__Host-thoughtfully_draft" : "thoughtfully_draft";
export const KEPT_DRAFT_TTL_MS = 15 * 60 * 1000;
/** What a browser stores of one cookie (4096 bytes with its name), with room to spare. */
const COOKIE_VALUE_MAX_CHARS = 3800;
/** Read at most this much of one field; longer fields are left out whole, never cut. */
const FIELD_MAX_CHARS = 20_000;
const SECRET_FIELD = /pass|token|secret|csrf|code/i;

/** Conform's payload of the kept fields: strings, lists and records of them. */
type DraftValues = NonNullable<SubmissionResult<string[]>["initialValue"]>;

export type KeptDraft = { page: string; fields: [string, string][]; expiresAt: number };

function signature(body: string) {
  return crypto
    .createHmac("sha256", env.SESSION_SECRET)
    .update(`kept-draft:${body}`)
    .digest("base64url");
}

/** The page a form lives on: its address without Remix's `index` and `_data` markers. */
export function pageOf(url: URL) {
  const search = new URLSearchParams(url.search);
  search.delete("index");
  search.delete("_data");
  const query = search.toString();
  return query ? `${url.pathname}?${query}` : url.pathname;
}

export function encodeDraft(draft: KeptDraft) {
  const body = deflateRawSync(JSON.stringify(draft)).toString("base64url");
  return `${body}.${signature(body)}`;
}

const draftSchema = z.object({
  page: z.string(),
  fields: z.array(z.tuple([z.string(), z.string()])),
  expiresAt: z.number(),
});

export function decodeDraft(value: string, now = Date.now()): KeptDraft | null {
  const [body, given, ...rest] = value.split(".");
  if (!body || !given || rest.length > 0 || !constantTimeEqual(given, signature(body))) return null;
  try {
    const parsed = draftSchema.safeParse(
      JSON.parse(inflateRawSync(Buffer.from(body, "base64url")).toString("utf8")),
    );
    return parsed.success && parsed.data.expiresAt > now ? parsed.data : null;
  } catch {
    return null;
  }
}

/**
 * The typed fields, in form order, as many whole ones as fit in the cookie.
 * The form's own plumbing (CSRF, conform's intent) is not typing.
 */
export function draftFor(page: string, formData: FormData, now = Date.now()): string | null {
  const typed = [...formData]
    .filter(
      (entry): entry is [string, string] =>
        typeof entry[1] === "string" &&
        entry[1].length <= FIELD_MAX_CHARS &&
        !SECRET_FIELD.test(entry[0]) &&
        !entry[0].startsWith("__"),
    )
    .map(([name, value]) => [name, value] as [string, string]);
  const fields: [string, string][] = [];
  let encoded: string | null = null;
  for (const field of typed) {
    const attempt = encodeDraft({
      page,
      fields: [...fields, field],
      expiresAt: now + KEPT_DRAFT_TTL_MS,
    });
    if (attempt.length > COOKIE_VALUE_MAX_CHARS) continue;
    fields.push(field);
    encoded = attempt;
  }
  return fields.some(([, value]) => value.trim() !== "") ? encoded : null;
}

function serialize(value: string, maxAgeSeconds: number) {
  return [
    `${COOKIE_NAME}=${value}`,
    "Path=/",
    "HttpOnly",
    "SameSite=Lax",
    `Max-Age=${maxAgeSeconds}`,
    ...(env.isHttps ? ["Secure"] : []),
  ].join("; ");
}

function readCookie(request: Request) {
  for (const part of (request.headers.get("Cookie") ?? "").split(";")) {
    const [name, ...value] = part.trim().split("=");
    if (name === COOKIE_NAME) return value.join("=");
  }
  return null;
}

/** Text fields of a form with files: each file's bytes are read past and dropped. */
async function textFieldsOf(request: Request): Promise<FormData> {
  const contentType = request.headers.get("content-type") ?? "";
  if (!/^multipart\/form-data/i.test(contentType)) return request.formData();
  return parseMultipartForm(
    request,
    async (part) => {
      const chunks: Uint8Array[] = [];
      for await (const chunk of part.data) if (part.filename === undefined) chunks.push(chunk);
      return part.filename === undefined ? Buffer.concat(chunks).toString("utf8") : undefined;
    },
    { maxParts: 200, tooManyPartsMessage: "Too many fields" },
  );
}

/**
 * The Set-Cookie header that keeps what this signed-out post typed, or null
 * when there is nothing to keep or the post was not made for the session
 * that ended (`endedSessionId`: the stored id of the session cookie it came with).
 */
export async function keepDraftOf(
  request: Request,
  endedSessionId: string,
  formData?: FormData,
): Promise<string | null> {
  if (isCrossSite(request)) return null;
  let form = formData;
  if (!form) {
    if (request.bodyUsed) return null;
    try {
      form = await textFieldsOf(request);
    } catch {
      return null;
    }
  }
  const token = request.headers.get("X-CSRF-Token") ?? form.get(CSRF_FIELD);
  if (
    typeof token !== "string" ||
    !constantTimeEqual(token, tokenFor(`session:${endedSessionId}`))
  ) {
    return null;
  }
  const draft = draftFor(pageOf(new URL(request.url)), form);
  return draft ? serialize(draft, KEPT_DRAFT_TTL_MS / 1000) : null;
}

/**
 * The draft kept for this page, as conform's `lastResult` (only the values:
 * no errors, no status, so nothing is shown as sent), and the header that
 * forgets it: a draft refills its form once. A draft for another page waits
 * (the log-in may pass through a second factor first).
 */
export function takeKeptDraft(request: Request): {
  keptDraft: { page: string; initialValue: DraftValues } | null;
  setCookie: string | null;
} {
  const value = readCookie(request);
  if (!value) return { keptDraft: null, setCookie: null };
  const draft = decodeDraft(value);
  if (!draft) return { keptDraft: null, setCookie: serialize("", 0) };
  if (draft.page !== pageOf(new URL(request.url))) return { keptDraft: null, setCookie: null };
  const formData = new FormData();
  for (const [name, text] of draft.fields) formData.append(name, text);
  const { payload } = parseWithZod(formData, { schema: z.unknown() });
  return {
    keptDraft: { page: draft.page, initialValue: payload as DraftValues },
    setCookie: serialize("", 0),
  };
}
