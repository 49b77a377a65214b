import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, test } from "vitest";

const root = fileURLToPath(new URL("../..", import.meta.url));
const PRIVACY_POLICY = "app/routes/_marketing+/privacy-policy.tsx";

/**
 * The ways the app names a cookie, each capturing the name's expression:
 * Remix's `createCookie(name, …)`; a `cookie: { name, … }` option
 * (createCookieSessionStorage, the OAuth strategy); a `COOKIE_NAME` constant
 * for a Set-Cookie header written by hand.
 * docs/decisions/0168-privacy-policy-names-every-cookie.md
 */
const COOKIE_NAMINGS = [
  /\bcreateCookie\(\s*([^,]+),/g,
  /\bcookie:\s*\{\s*name:\s*([^,]+),/g,
  /\bCOOKIE_NAME\s*=\s*([^;]+);/g,
];

const STRING_LITERAL = /["'`]([^"'`$]+)["'`]/g;

function serverSources(): string[] {
  return execFileSync("git", ["ls-files", "app", "server"], { cwd: root, encoding: "utf8" })
    .split("\n")
    .filter((path) => /\.tsx?$/.test(path) && !/\.test\.tsx?$/.test(path));
}

/** Each cookie-naming expression in the app, with the names it can give (`__Host-` dropped). */
function cookieNamings(): { at: string; names: string[] }[] {
  return serverSources().flatMap((path) => {
    const source = readFileSync(`${root}/${path}`, "utf8");
    return COOKIE_NAMINGS.flatMap((naming) =>
      [...source.matchAll(naming)].map(([, expression = ""]) => ({
        at: `${path}: ${expression.trim()}`,
        names: [
          ...new Set(
            [...expression.matchAll(STRING_LITERAL)].map(([, name = ""]) =>
              name.replace(/^__Host-/, ""),
            ),
          ),
        ],
      })),
    );
  });
}

describe("the privacy policy names every cookie the app sets", () => {
  test("the cookies are found, whichever way they are named", () => {
    const names = cookieNamings().flatMap((naming) => naming.names);
    expect(names).toEqual(
      expect.arrayContaining([
        "thoughtfully_session",
        "thoughtfully_toast",
        "thoughtfully_oauth",
        "thoughtfully_draft",
      ]),
    );
  });

  test("each cookie is named by a literal, so that it can be checked", () => {
    expect(cookieNamings().filter((naming) => naming.names.length === 0)).toEqual([]);
  });

  test("each name is listed on the privacy page", () => {
    const page = readFileSync(`${root}/${PRIVACY_POLICY}`, "utf8");
    const unlisted = cookieNamings().flatMap(({ at, names }) =>
      names
        .filter((name) => !page.includes(`<code>${name}</code>`))
        .map((name) => `${name} (${at})`),
    );
    expect(unlisted).toEqual([]);
  });
});
