import { and, asc, eq } from "drizzle-orm";
import { apiTokens, users } from "#db/schema";
import { hashToken, randomToken, type SessionUser } from "~/modules/auth/session.server";
import { db } from "~/platform/db.server";
import { RuleError } from "~/platform/errors.server";
import {
  type ApiTokenInput,
  type ApiTokenScope,
  DEFAULT_API_TOKEN_LIFETIME_DAYS,
  MAX_API_TOKEN_LIFETIME_DAYS,
} from "./api-token-validation";

/**
 * Personal access tokens for the JSON API. The token is shown once; only its
 * SHA-256 is kept (like sessions), so a leaked database opens nothing. A
 * token is read only from the Authorization header, never from a cookie, so
 * no other site can make a browser use it. Every token expires (90 days
 * unless chosen, a year at most); a password reset revokes them all.
 * docs/decisions/0108-password-reset-evicts-everyone.md.
 */
export const TOKEN_PREFIX = "tht_";
const MAX_TOKENS_PER_USER = 20;
/** Last use is recorded at most this often, not on every request. */
const LAST_USED_RESOLUTION_MS = 60 * 1000;
const DAY_MS = 24 * 60 * 60 * 1000;

export class ApiTokenRuleError extends RuleError {}

export type ApiTokenSummary = {
  id: number;
  name: string;
  scope: ApiTokenScope;
  createdAt: Date;
  lastUsedAt: Date | null;
  expiresAt: Date;
};

/** A row without an expiry (none should be left) is read as the default lifetime from its creation. */
function expiryOf(token: { createdAt: Date; expiresAt: Date | null }) {
  return (
    token.expiresAt ??
    new Date(token.createdAt.getTime() + DEFAULT_API_TOKEN_LIFETIME_DAYS * DAY_MS)
  );
}

export function listApiTokens(userId: number): ApiTokenSummary[] {
  return db
    .select({
      id: apiTokens.id,
      name: apiTokens.name,
      scope: apiTokens.scope,
      createdAt: apiTokens.createdAt,
      lastUsedAt: apiTokens.lastUsedAt,
      expiresAt: apiTokens.expiresAt,
    })
    .from(apiTokens)
    .where(eq(apiTokens.userId, userId))
    .orderBy(asc(apiTokens.createdAt), asc(apiTokens.id))
    .all()
    .map((token) => ({ ...token, expiresAt: expiryOf(token) }));
}

/** Creates a token and returns it in clear: the only time it exists outside the caller's hands. */
export function createApiToken(
  userId: number,
  input: Pick<ApiTokenInput, "name" | "scope"> & { expiresInDays?: number },
  now = new Date(),
) {
  if (listApiTokens(userId).length >= MAX_TOKENS_PER_USER) {
    throw new ApiTokenRuleError(
      `You can have at most ${MAX_TOKENS_PER_USER} tokens. Revoke one you no longer use first.`,
    );
  }
  const days = Math.min(
    input.expiresInDays ?? DEFAULT_API_TOKEN_LIFETIME_DAYS,
    MAX_API_TOKEN_LIFETIME_DAYS,
  );
  const expiresAt = new Date(now.getTime() + days * DAY_MS);
  const token = `${TOKEN_PREFIX}${randomToken()}`;
  const row = db
    .insert(apiTokens)
    .values({
      userId,
      name: input.name,
      scope: input.scope,
      tokenHash: hashToken(token),
      createdAt: now,
      expiresAt,
    })
    .returning({ id: apiTokens.id })
    .get();
  return { id: row.id, token, expiresAt };
}

/** The revoked token's name, or null when the user had no such token. */
export function revokeApiToken(userId: number, tokenId: number) {
  return (
    db
      .delete(apiTokens)
      .where(and(eq(apiTokens.id, tokenId), eq(apiTokens.userId, userId)))
      .returning({ name: apiTokens.name })
      .get()?.name ?? null
  );
}

export type ApiPrincipal = { user: SessionUser; tokenId: number; scope: ApiTokenScope };

/** The bearer token of the request, if it is one of ours. */
export function bearerToken(request: Request): string | null {
  const header = request.headers.get("authorization");
  const match = header ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
  const token = match?.[1];
  return token?.startsWith(TOKEN_PREFIX) ? token : null;
}

/**
 * The user and scope of a live token, recording its use; "expired" for one
 * past its expiry (the API says so), null for an unknown or revoked one.
 */
export function authenticateApiToken(
  token: string,
  now = new Date(),
): ApiPrincipal | "expired" | null {
  const row = db
    .select({ user: users, token: apiTokens })
    .from(apiTokens)
    .innerJoin(users, eq(users.id, apiTokens.userId))
    .where(eq(apiTokens.tokenHash, hashToken(token)))
    .get();
  if (!row) return null;
  if (expiryOf(row.token).getTime() <= now.getTime()) return "expired";
  const last = row.token.lastUsedAt?.getTime() ?? 0;
  if (now.getTime() - last >= LAST_USED_RESOLUTION_MS) {
    db.update(apiTokens).set({ lastUsedAt: now }).where(eq(apiTokens.id, row.token.id)).run();
  }
  return { user: row.user, tokenId: row.token.id, scope: row.token.scope };
}
