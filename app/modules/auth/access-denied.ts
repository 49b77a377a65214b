/**
 * The answer to someone who may not open an admin page (app/modules/auth/roles.server.ts),
 * shared with the page that shows it, which sends them home.
 */

export type AccessDenied = { kind: "access_denied"; redirectTo: "/" };

export function isAccessDenied(value: unknown): value is AccessDenied {
  return (
    typeof value === "object" && value !== null && (value as AccessDenied).kind === "access_denied"
  );
}

/** A refused admin is sent to / after 1.5 s (docs/product-rules.md, Admin dashboards). */
export const ACCESS_DENIED_REDIRECT_MS = 1500;
