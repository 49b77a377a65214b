import { expect, test } from "vitest";
import { createUser } from "#db/factories";
import { db } from "~/platform/db.server";
import { API_OPERATIONS } from "./api-operations.server";
import { ApiTokenSchema } from "./api-token-validation";
import {
  ApiTokenRuleError,
  authenticateApiToken,
  bearerToken,
  createApiToken,
  listApiTokens,
  revokeApiToken,
} from "./api-tokens.server";

const withAuthorization = (value: string) =>
  new Request("http://localhost:3000/api/v1/folders", { headers: { Authorization: value } });

test("reads only a bearer token of ours from the Authorization header", () => {
  expect(bearerToken(withAuthorization("Bearer tht_abc"))).toBe("tht_abc");
  expect(bearerToken(withAuthorization("bearer   tht_abc  "))).toBe("tht_abc");
  expect(bearerToken(withAuthorization("Basic dXNlcjpwYXNz"))).toBeNull();
  expect(bearerToken(withAuthorization("Bearer someone-elses"))).toBeNull();
  expect(bearerToken(new Request("http://localhost:3000/"))).toBeNull();
});

test("a token is its user's until revoked, and only its owner can revoke it", () => {
  const owner = createUser(db);
  const other = createUser(db);
  const { id, token } = createApiToken(owner.id, { name: "Script", scope: "read" });
  expect(authenticateApiToken(token)).toMatchObject({ tokenId: id, scope: "read" });
  expect(authenticateApiToken(token)).toMatchObject({ user: { id: owner.id } });
  expect(revokeApiToken(other.id, id)).toBeNull();
  expect(listApiTokens(owner.id)).toMatchObject([{ id, name: "Script", scope: "read" }]);
  expect(revokeApiToken(owner.id, id)).toBe("Script");
  expect(authenticateApiToken(token)).toBeNull();
  expect(listApiTokens(owner.id)).toEqual([]);
});

test("last use is recorded at most once a minute", () => {
  const start = new Date("2026-01-01T10:00:00Z");
  const { id, token } = createApiToken(
    createUser(db).id,
    { name: "Shortcut", scope: "write" },
    new Date(start.getTime() - 1000),
  );
  authenticateApiToken(token, start);
  authenticateApiToken(token, new Date(start.getTime() + 30_000));
  const principal = authenticateApiToken(token, start);
  if (!principal || principal === "expired") throw new Error("the token should work");
  const ownerId = principal.user.id;
  expect(listApiTokens(ownerId).find((row) => row.id === id)?.lastUsedAt).toEqual(start);
  authenticateApiToken(token, new Date(start.getTime() + 61_000));
  expect(listApiTokens(ownerId).find((row) => row.id === id)?.lastUsedAt).toEqual(
    new Date(start.getTime() + 61_000),
  );
});

test("at most 20 tokens per user", () => {
  const user = createUser(db);
  for (let index = 0; index < 20; index += 1) {
    createApiToken(user.id, { name: `T${index}`, scope: "read" });
  }
  expect(() => createApiToken(user.id, { name: "one more", scope: "read" })).toThrow(
    ApiTokenRuleError,
  );
});

const DAY_MS = 24 * 60 * 60 * 1000;

test("a token expires after 90 days unless another lifetime is chosen, and never after more than a year", () => {
  const user = createUser(db);
  const now = new Date("2026-03-01T00:00:00Z");
  const byDefault = createApiToken(user.id, { name: "Default", scope: "read" }, now);
  const week = createApiToken(user.id, { name: "Week", scope: "read", expiresInDays: 7 }, now);
  const tooLong = createApiToken(user.id, { name: "Long", scope: "read", expiresInDays: 900 }, now);
  expect(byDefault.expiresAt).toEqual(new Date(now.getTime() + 90 * DAY_MS));
  expect(week.expiresAt).toEqual(new Date(now.getTime() + 7 * DAY_MS));
  expect(tooLong.expiresAt).toEqual(new Date(now.getTime() + 365 * DAY_MS));
  expect(listApiTokens(user.id).map((token) => token.expiresAt)).toEqual([
    byDefault.expiresAt,
    week.expiresAt,
    tooLong.expiresAt,
  ]);
});

test("an expired token is refused as expired, and its last use stays as it was", () => {
  const user = createUser(db);
  const now = new Date("2026-03-01T00:00:00Z");
  const { token } = createApiToken(user.id, { name: "Week", scope: "read", expiresInDays: 7 }, now);
  const lastMoment = new Date(now.getTime() + 7 * DAY_MS - 1);
  expect(authenticateApiToken(token, lastMoment)).toMatchObject({ scope: "read" });
  expect(authenticateApiToken(token, new Date(now.getTime() + 7 * DAY_MS))).toBe("expired");
  expect(listApiTokens(user.id)[0]?.lastUsedAt).toEqual(lastMoment);
});

test("the lifetimes offered are the only ones the form accepts", () => {
  expect(ApiTokenSchema.parse({ name: "x" }).expiresInDays).toBe(90);
  expect(ApiTokenSchema.parse({ name: "x", expiresInDays: "365" }).expiresInDays).toBe(365);
  expect(ApiTokenSchema.safeParse({ name: "x", expiresInDays: "366" }).success).toBe(false);
});

test("a new token may write unless read only is chosen: the form's example, a phone shortcut, adds items", () => {
  expect(ApiTokenSchema.parse({ name: "Phone shortcut" }).scope).toBe("write");
  expect(ApiTokenSchema.parse({ name: "Reader", scope: "read" }).scope).toBe("read");
});

test("no API operation mints a token or touches a way in: a token alone cannot add another", () => {
  // Credentials change only in the browser, after "Confirm it's you"
  // (docs/decisions/0107-reauthentication-window.md); the API may only read its own token.
  const credentialPaths = API_OPERATIONS.filter((operation) =>
    /token|passkey|two-factor|totp|recovery|password|session|email/i.test(operation.path),
  ).map((operation) => `${operation.method} ${operation.path}`);
  expect(credentialPaths).toEqual(["GET /token"]);
});
