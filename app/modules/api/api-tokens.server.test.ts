import { expect, test } from "vitest";
import { createUser } from "#db/factories";
import { db } from "~/platform/db.server";
import {
  ApiTokenRuleError,
  authenticateApiToken,
  bearerToken,
  createApiToken,
  listApiTokens,
  revokeApiToken,
} from "./api-tokens.server";

let counter = 0;
function newUser() {
  counter += 1;
  return createUser(db, { email: `tokens-${counter}@example.com` });
}

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
  const owner = newUser();
  const other = newUser();
  const { id, token } = createApiToken(owner.id, { name: "Script", scope: "read" });
  expect(authenticateApiToken(token)).toMatchObject({ tokenId: id, scope: "read" });
  expect(authenticateApiToken(token)?.user.id).toBe(owner.id);
  expect(revokeApiToken(other.id, id)).toBe(false);
  expect(listApiTokens(owner.id)).toMatchObject([{ id, name: "Script", scope: "read" }]);
  expect(revokeApiToken(owner.id, id)).toBe(true);
  expect(authenticateApiToken(token)).toBeNull();
  expect(listApiTokens(owner.id)).toEqual([]);
});

test("last use is recorded at most once a minute", () => {
  const { id, token } = createApiToken(newUser().id, { name: "Shortcut", scope: "write" });
  const start = new Date("2026-01-01T10:00:00Z");
  authenticateApiToken(token, start);
  authenticateApiToken(token, new Date(start.getTime() + 30_000));
  const ownerId = authenticateApiToken(token, start)!.user.id;
  expect(listApiTokens(ownerId).find((row) => row.id === id)?.lastUsedAt).toEqual(start);
  authenticateApiToken(token, new Date(start.getTime() + 61_000));
  expect(listApiTokens(ownerId).find((row) => row.id === id)?.lastUsedAt).toEqual(
    new Date(start.getTime() + 61_000),
  );
});

test("at most 20 tokens per user", () => {
  const user = newUser();
  for (let index = 0; index < 20; index += 1) {
    createApiToken(user.id, { name: `T${index}`, scope: "read" });
  }
  expect(() => createApiToken(user.id, { name: "one more", scope: "read" })).toThrow(
    ApiTokenRuleError,
  );
});
