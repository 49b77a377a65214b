import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, test } from "vitest";

const root = fileURLToPath(new URL("../..", import.meta.url));

/**
 * db/, storage/ and emails/ sit below the app: they import nothing from app/
 * and read no environment, so any test or script can import them in any order
 * without loading (and validating) the app's configuration. The configured
 * instances (the database handle, the file store) live in app/utils.
 */
const LOWER_LAYERS = ["db/", "storage/", "emails/"];

const importSpecifier = /(?:from\s+|import\s*\(\s*|require\s*\(\s*)["']([^"']+)["']/g;

function lowerLayerFiles(): string[] {
  return execFileSync("git", ["ls-files", "--cached", "--others", "--exclude-standard"], {
    cwd: root,
    encoding: "utf8",
  })
    .split("\n")
    .filter((path) => LOWER_LAYERS.some((layer) => path.startsWith(layer)))
    .filter((path) => /\.(ts|tsx)$/.test(path));
}

function reachesIntoTheApp(specifier: string) {
  return specifier.startsWith("~/") || /(^|\/)app\//.test(specifier);
}

describe("lower layers stay below the app", () => {
  test("db/, storage/ and emails/ import nothing from app/", () => {
    const offending = lowerLayerFiles().flatMap((path) =>
      [...readFileSync(`${root}/${path}`, "utf8").matchAll(importSpecifier)]
        .map((match) => match[1] as string)
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
    expect(reachesIntoTheApp("~/utils/env.server")).toBe(true);
    expect(reachesIntoTheApp("../app/utils/format")).toBe(true);
    expect(reachesIntoTheApp("#db/schema")).toBe(false);
    expect(reachesIntoTheApp("./connection")).toBe(false);
  });
});
