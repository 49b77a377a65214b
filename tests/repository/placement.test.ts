import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, test } from "vitest";

const root = fileURLToPath(new URL("../..", import.meta.url));

/**
 * A newcomer finds a component or a browser test by its feature: app/components/ and
 * tests/e2e/ hold a folder per feature, nothing flat beside them (issue 49, item 6), and
 * the README's layout names every one of those folders.
 */
function trackedUnder(folder: string): string[] {
  return execFileSync("git", ["ls-files", "--cached", "--others", "--exclude-standard", folder], {
    cwd: root,
    encoding: "utf8",
  })
    .split("\n")
    .filter(Boolean)
    .map((path) => path.slice(folder.length));
}

/** The names at a folder's top level: files as they are, folders with a trailing slash. */
function topLevel(paths: string[]): string[] {
  return [...new Set(paths.map((path) => path.replace(/\/.*$/s, "/")))].sort();
}

const layout = readFileSync(`${root}/README.md`, "utf8").match(
  /## Layout\n\n```\n([\s\S]*?)```/,
)?.[1];

describe("the feature folders", () => {
  test("app/components/ holds folders only, each named in the README's layout", () => {
    const entries = topLevel(trackedUnder("app/components/"));
    expect(entries.filter((entry) => !entry.endsWith("/"))).toEqual([]);
    expect(layout).toBeDefined();
    for (const folder of entries) expect(layout, folder).toContain(folder);
  });

  test("tests/e2e/ holds its fixtures, its support and folders of specs, each named in the README", () => {
    const entries = topLevel(trackedUnder("tests/e2e/"));
    expect(entries.filter((entry) => !entry.endsWith("/"))).toEqual(["fixtures.ts"]);
    for (const folder of entries.filter((entry) => entry.endsWith("/"))) {
      expect(layout, folder).toContain(folder);
    }
  });

  test("every spec sits one folder down: tests/e2e/<feature>/<name>.spec.ts", () => {
    const specs = trackedUnder("tests/e2e/").filter((path) => path.endsWith(".spec.ts"));
    expect(specs.length).toBeGreaterThan(50);
    expect(specs.filter((path) => !/^[a-z-]+\/[^/]+\.spec\.ts$/.test(path))).toEqual([]);
  });

  test("a flat file is seen (the check can fail)", () => {
    expect(topLevel(["item-card.tsx", "items/item-form.tsx", "items/x/y.tsx"])).toEqual([
      "item-card.tsx",
      "items/",
    ]);
  });
});
