import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { posix } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, test } from "vitest";

const root = fileURLToPath(new URL("../..", import.meta.url));

/**
 * db/, storage/ and emails/ sit below the app: they import nothing from app/
 * and read no environment, so any test or script can import them in any order
 * without loading (and validating) the app's configuration. The configured
 * instances (the database handle, the file store) live in app/platform.
 */
const LOWER_LAYERS = ["db/", "storage/", "emails/"];

const importSpecifier = /(?:from\s+|import\s*\(\s*|require\s*\(\s*)["']([^"']+)["']/g;

function sourceFiles(): string[] {
  return execFileSync("git", ["ls-files", "--cached", "--others", "--exclude-standard"], {
    cwd: root,
    encoding: "utf8",
  })
    .split("\n")
    .filter((path) => /\.(ts|tsx|mjs)$/.test(path) && existsSync(`${root}/${path}`));
}

function lowerLayerFiles(): string[] {
  return sourceFiles().filter((path) => LOWER_LAYERS.some((layer) => path.startsWith(layer)));
}

function importsOf(path: string): string[] {
  return [...readFileSync(`${root}/${path}`, "utf8").matchAll(importSpecifier)].map(
    (match) => match[1] as string,
  );
}

/** Where a relative specifier lands, repository-relative; null for aliases and packages. */
function landing(path: string, specifier: string): string | null {
  if (!specifier.startsWith(".")) return null;
  return posix.normalize(posix.join(posix.dirname(path), specifier));
}

function reachesIntoTheApp(specifier: string) {
  return specifier.startsWith("~/") || /(^|\/)app\//.test(specifier);
}

describe("lower layers stay below the app", () => {
  test("db/, storage/ and emails/ import nothing from app/", () => {
    const offending = lowerLayerFiles().flatMap((path) =>
      importsOf(path)
        .filter(reachesIntoTheApp)
        .map((specifier) => `${path} imports ${specifier}`),
    );
    expect(offending).toEqual([]);
  });

  test("db/, storage/ and emails/ read no environment outside their tests", () => {
    const offending = lowerLayerFiles()
      .filter((path) => !/\.test\.tsx?$/.test(path))
      .filter((path) => readFileSync(`${root}/${path}`, "utf8").includes("process.env"));
    expect(offending).toEqual([]);
  });

  test("the check recognises a reach into the app", () => {
    expect(reachesIntoTheApp("~/platform/env.server")).toBe(true);
    expect(reachesIntoTheApp("../app/utils/format")).toBe(true);
    expect(reachesIntoTheApp("#db/schema")).toBe(false);
    expect(reachesIntoTheApp("./connection")).toBe(false);
  });
});

/**
 * The app's own layers: domain modules (app/modules/<domain>) and the platform
 * under them (app/platform) hold rules and plumbing, so they never reach up
 * into components, routes or the document. The platform serves every domain
 * and uses none, except the session reader: CSRF tokens are bound to the session.
 */
const PLATFORM_MAY_USE = new Set(["~/modules/accounts/session.server"]);

describe("domain modules and the platform stay under the screens", () => {
  // Tests may drive a route through its action, as a browser would.
  const files = () =>
    sourceFiles().filter(
      (path) => /^app\/(modules|platform)\//.test(path) && !/\.test\.tsx?$/.test(path),
    );

  test("they import neither components, routes nor the root", () => {
    const offending = files().flatMap((path) =>
      importsOf(path)
        .filter((specifier) => /^~\/(components|routes|root)\b/.test(specifier))
        .map((specifier) => `${path} imports ${specifier}`),
    );
    expect(offending).toEqual([]);
  });

  test("the platform imports no domain module but the session reader", () => {
    const offending = files()
      .filter((path) => path.startsWith("app/platform/"))
      .flatMap((path) =>
        importsOf(path)
          .filter(
            (specifier) => specifier.startsWith("~/modules/") && !PLATFORM_MAY_USE.has(specifier),
          )
          .map((specifier) => `${path} imports ${specifier}`),
      );
    expect(offending).toEqual([]);
  });
});

/**
 * One import style: a sibling in the same folder is `./name`; anything in
 * another top-level folder is reached by its alias (`~/` for app/, `#db/`,
 * `#emails/`, `#storage/`, `#server/`, `#tests/`); inside app/, every other
 * folder is reached by `~/` too, so moving a file never changes how others
 * import it. `../` is left for tests' and benches' own support files.
 */
describe("imports use one style", () => {
  test("no relative import leaves its top-level folder, and app/ has none with ../", () => {
    // Root files (the tools' configs) have no top-level folder of their own.
    const offending = sourceFiles()
      .filter((path) => path.includes("/"))
      .flatMap((path) =>
        importsOf(path)
          .filter((specifier) => {
            const target = landing(path, specifier);
            if (target === null) return false;
            if (path.startsWith("app/") && specifier.startsWith("../")) return true;
            return target.split("/")[0] !== path.split("/")[0];
          })
          .map((specifier) => `${path} imports ${specifier}`),
      );
    expect(offending).toEqual([]);
  });

  test("the check sees where a relative import lands", () => {
    expect(landing("bench/support/app-server.ts", "../../tests/support/free-port")).toBe(
      "tests/support/free-port",
    );
    expect(landing("tests/integration/a.test.ts", "../support/smtp-sink")).toBe(
      "tests/support/smtp-sink",
    );
    expect(landing("app/modules/items/a.ts", "~/platform/db.server")).toBeNull();
  });
});
