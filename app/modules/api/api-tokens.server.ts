import { and, asc, eq } from "drizzle-orm";
import { apiTokens, users } from "#db/schema";
import { hashToken, randomToken, type SessionUser } from "~/modules/accounts/session.server";
import { db } from "~/platform/db.server";
import { RuleError } from "~/platform/errors.server";
import type { ApiTokenInput, ApiTokenScope } from "./api-token-validation";

/**
 * Personal access tokens for the JSON API. The token is shown once; only its
 * SHA-256 is kept (like sessions), so a leaked database opens nothing. A
 * token is read only from the Authorization header, never from a cookie, so
 * no other site can make a browser use it.
 */
export const TOKEN_PREFIX = "tht_";
const MAX_TOKENS_PER_USER = 20;
/** Last use is recorded at most this often, not on every request. */
const LAST_USED_RESOLUTION_MS = 60 * 1000;

export class ApiTokenRuleError extends RuleError {}

export type ApiTokenSummary = {
  id: number;
  name: string;
  scope: ApiTokenScope;
  createdAt: Date;
  lastUsedAt: Date | null;
};

export function listApiTokens(userId: number): ApiTokenSummary[] {
  return db
    .select({
      id: apiTokens.id,
      name: apiTokens.name,
      scope: apiTokens.scope,
      createdAt: apiTokens.createdAt,
      lastUsedAt: apiTokens.lastUsedAt,
    })
    .from(apiTokens)
    .where(eq(apiTokens.userId, userId))
    .orderBy(asc(apiTokens.createdAt), asc(apiTokens.id))
    .all();
}

/** Creates a token and returns it in clear: the only time it exists outside the caller's hands. */
export function createApiToken(userId: number, input: ApiTokenInput) {
  if (listApiTokens(userId).length >= MAX_TOKENS_PER_USER) {
    throw new ApiTokenRuleError(
      `You can have at most ${MAX_TOKENS_PER_USER} tokens. Revoke one you no longer use first.`,
    );
  }
  const token = `${TOKEN_PREFIX}${randomToken()}`;
  const row = db
    .insert(apiTokens)
    .values({ userId, name: input.name, scope: input.scope, tokenHash: hashToken(token) })
    .returning({ id: apiTokens.id })
    .get();
  return { id: row.id, token };
}

/** Returns whether a token of the user's was revoked. */
export function revokeApiToken(userId: number, tokenId: number) {
  return (
    db
      .delete(apiTokens)
      .where(and(eq(apiTokens.id, tokenId), eq(apiTokens.userId, userId)))
      .run().changes > 0
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

/** The user and scope of a live token, recording its use; null for an unknown or revoked one. */
export function authenticateApiToken(token: string, now = new Date()): ApiPrincipal | null {
  const row = db
    .select({ user: users, token: apiTokens })
    .from(apiTokens)
    .innerJoin(users, eq(users.id, apiTokens.userId))
    .where(eq(apiTokens.tokenHash, hashToken(token)))
    .get();
  if (!row) return null;
  const last = row.token.lastUsedAt?.getTime() ?? 0;
  if (now.getTime() - last >= LAST_USED_RESOLUTION_MS) {
    db.update(apiTokens).set({ lastUsedAt: now }).where(eq(apiTokens.id, row.token.id)).run();
  }
  return { user: row.user, tokenId: row.token.id, scope: row.token.scope };
}
