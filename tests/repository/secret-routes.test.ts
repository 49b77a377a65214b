import { describe, expect, test } from "vitest";
import { SECRET_ROUTES } from "~/platform/secret-paths";
import { routeTable } from "../support/route-table";

/**
 * The route table as `remix build` makes it: every dynamic segment is either a
 * secret, and then its route is in app/platform/secret-paths.ts so the request
 * log redacts it, or a name known to carry none. A new name must be sorted
 * into one or the other. docs/decisions/0111-secret-paths-never-logged.md
 */
const SECRET_LIKE = /code|token|key|secret|sig|hash|nonce|otp|state|password|credential|invite/i;
const KNOWN_SECRET_NAMES = ["code", "fileKey"];
/** Database ids and enum values, each checked against the signed-in owner by its route. */
const NOT_SECRET_NAMES = [
  "folderId",
  "itemId",
  "issueId",
  "index",
  "type",
  "draftId",
  "id",
  "relay",
];

describe("routes whose path carries a secret", () => {
  test("the table is read (a route known to carry a code is in it)", async () => {
    expect((await routeTable()).map((route) => route.path)).toContain("/v/:code");
  });

  test("every route with a code-like segment is in the secret list", async () => {
    const listed = new Set(SECRET_ROUTES.map((route) => route.path));
    const missing = (await routeTable())
      .filter((route) =>
        route.params.some((name) => SECRET_LIKE.test(name) || KNOWN_SECRET_NAMES.includes(name)),
      )
      .filter((route) => !listed.has(route.path))
      .map((route) => `${route.id} (${route.path})`);
    expect(missing).toEqual([]);
  });

  test("every other dynamic segment is a name known to carry no secret", async () => {
    const listed = new Set(SECRET_ROUTES.map((route) => route.path));
    const unknown = (await routeTable())
      .filter((route) => !listed.has(route.path))
      .flatMap((route) => route.params.map((name) => `${name} in ${route.id}`))
      .filter((entry) => !NOT_SECRET_NAMES.includes(entry.split(" ")[0] ?? ""));
    expect(unknown).toEqual([]);
  });

  test("every route in the secret list exists", async () => {
    const paths = new Set((await routeTable()).map((route) => route.path));
    expect(SECRET_ROUTES.map((route) => route.path).filter((path) => !paths.has(path))).toEqual([]);
  });
});
