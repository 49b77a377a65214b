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
