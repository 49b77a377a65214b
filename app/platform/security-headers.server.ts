import crypto from "node:crypto";

export function createNonce() {
  return crypto.randomBytes(16).toString("base64");
}

type SecurityHeaderOptions = {
  nonce?: string;
  isHttps: boolean;
  isDevelopment: boolean;
  formActionOrigins?: string[];
};

/**
 * Headers every response carries. The CSP lets only scripts with this
 * request's nonce run (and what they load), and forbids framing, plugins and
 * <base> tricks.
 */
export function applySecurityHeaders(headers: Headers, options: SecurityHeaderOptions) {
  const scriptSources = options.nonce
    ? [`'nonce-${options.nonce}'`, "'strict-dynamic'", "'self'"]
    : ["'self'"];
  const connectSources = ["'self'", ...(options.isDevelopment ? ["ws:"] : [])];
  const directives = [
    "default-src 'self'",
    `script-src ${scriptSources.join(" ")}`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self'",
    `connect-src ${connectSources.join(" ")}`,
    "frame-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    `form-action ${["'self'", ...(options.formActionOrigins ?? [])].join(" ")}`,
    "frame-ancestors 'none'",
  ];
  if (options.isHttps) directives.push("upgrade-insecure-requests");
  headers.set("Content-Security-Policy", directives.join("; "));
  headers.set("X-Content-Type-Options", "nosniff");
  headers.set("Referrer-Policy", "strict-origin-when-cross-origin");
  headers.set("X-Frame-Options", "DENY");
  headers.set("Cross-Origin-Opener-Policy", "same-origin");
  headers.set("Permissions-Policy", "camera=(), microphone=(), geolocation=()");
  if (options.isHttps) {
    headers.set("Strict-Transport-Security", "max-age=31536000; includeSubDomains");
  }
}

/**
 * The policy of an answer that set none of its own (a resource route's HTML,
 * a static file, an error from the server itself): no script at all, pictures
 * from this site only, inline styles, no forms, never framed, and sandboxed so
 * that even markup that slipped through runs in no origin of ours; links may
 * still open in a new tab.
 * docs/decisions/0112-security-headers-on-every-answer.md
 */
export const NO_SCRIPT_POLICY = [
  "default-src 'none'",
  "img-src 'self'",
  "style-src 'unsafe-inline'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
  "sandbox allow-popups allow-popups-to-escape-sandbox",
].join("; ");

/** Types a browser may render as a page, with scripts; an answer without a type may be sniffed as one. */
const DOCUMENT_TYPE =
  /^\s*(?:text\/html|application\/xhtml\+xml|image\/svg\+xml|text\/xml|application\/(?:[\w.-]+\+)?xml)\s*(?:;|$)/i;

type ResponseHeaders = {
  getHeader(name: string): unknown;
  setHeader(name: string, value: string): unknown;
};

/**
 * Completes the headers of any answer just before they are sent, whichever
 * code made it (server/index.ts calls this for every response): nosniff on
 * all; on anything that can render as a page (or has no type, and so may be
 * sniffed as one) and brought no policy of its own, NO_SCRIPT_POLICY and no
 * framing, and on such a page no Referer unless it chose one; and no Referer
 * from an address whose path carries a code (app/platform/secret-paths.ts),
 * whatever the route said, but to our own origin from such a page with forms.
 */
export function completeSecurityHeaders(
  response: ResponseHeaders,
  request: {
    addressCarriesSecret: boolean;
    /** Such an address's own policy: "same-origin" for a page that posts forms to us (secret-paths.ts). */
    secretReferrerPolicy?: "no-referrer" | "same-origin";
  },
) {
  response.setHeader("X-Content-Type-Options", "nosniff");
  const contentType = response.getHeader("Content-Type");
  const isPage = contentType !== undefined && DOCUMENT_TYPE.test(String(contentType));
  if ((isPage || contentType === undefined) && !response.getHeader("Content-Security-Policy")) {
    response.setHeader("Content-Security-Policy", NO_SCRIPT_POLICY);
    response.setHeader("X-Frame-Options", "DENY");
    // Not on an untyped answer (a redirect): its policy would carry over to the next request.
    if (isPage && !response.getHeader("Referrer-Policy")) {
      response.setHeader("Referrer-Policy", "no-referrer");
    }
  }
  // A page with Referrer-Policy: no-referrer posts with "Origin: null", which the CSRF check
  // refuses: one with forms sends its Referer to our own origin only.
  if (request.addressCarriesSecret) {
    response.setHeader("Referrer-Policy", request.secretReferrerPolicy ?? "no-referrer");
  }
}
