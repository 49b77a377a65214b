import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { expect, test } from "vitest";

const root = fileURLToPath(new URL("../..", import.meta.url));

/**
 * Every error a domain (app/modules) declares extends the one vocabulary's
 * `NotFoundError` or `RuleError` (app/platform/errors.server.ts), or one of
 * theirs, so routes answer it one way. The API's `ApiError` stays outside: it
 * is the API's answer itself (status, code, fields), which domain errors are
 * turned into. docs/decisions/0113-the-last-errors-join-the-vocabulary.md.
 */
const OUTSIDE_THE_VOCABULARY = new Set(["ApiError"]);

const errorClass = /class\s+(\w+)\s+extends\s+(\w+)/g;

function domainFiles(): string[] {
  return execFileSync("git", ["ls-files", "--cached", "--others", "--exclude-standard", "app"], {
    cwd: root,
    encoding: "utf8",
  })
    .split("\n")
    .filter(
      (path) =>
        path.startsWith("app/modules/") &&
        /\.tsx?$/.test(path) &&
        !/\.test\.tsx?$/.test(path) &&
        existsSync(`${root}/${path}`),
    );
}

test("every domain error extends NotFoundError or RuleError, the API's own answer aside", () => {
  const parents = new Map<string, { parent: string; path: string }>();
  for (const path of domainFiles()) {
    for (const [, name, parent] of readFileSync(`${root}/${path}`, "utf8").matchAll(errorClass)) {
      parents.set(name!, { parent: parent!, path });
    }
  }
  const rootOf = (name: string): string => {
    const declared = parents.get(name);
    return declared ? rootOf(declared.parent) : name;
  };
  const errors = [...parents].filter(([name]) => rootOf(name).endsWith("Error"));
  expect(errors.length).toBeGreaterThan(10);
  const outside = errors
    .filter(([name]) => !OUTSIDE_THE_VOCABULARY.has(name))
    .filter(([name]) => !["NotFoundError", "RuleError"].includes(rootOf(name)))
    .map(([name, { path }]) => `${path}: ${name} extends ${rootOf(name)}`);
  expect(outside).toEqual([]);
});

/** Each `catch (error) { … }` block of `source`, braces matched. */
function catchBlocks(source: string): string[] {
  const blocks: string[] = [];
  for (const found of source.matchAll(/catch \(error\) \{/g)) {
    let depth = 0;
    for (let at = found.index + found[0].length - 1; at < source.length; at++) {
      if (source[at] === "{") depth++;
      if (source[at] === "}" && --depth === 0) {
        blocks.push(source.slice(found.index, at + 1));
        break;
      }
    }
  }
  return blocks;
}

/**
 * A route's catch-all that answers a fault itself (logged, then a 500, a
 * failure toast, a form error) passes a busy database on to the server's one
 * busy answer, a 503 with Retry-After and the form as typed, or throws every
 * error it does not know on
 * (docs/decisions/0246-a-busy-database-is-a-503-quickly.md).
 */
test("every catch-all of a route passes a busy database on", () => {
  const files = execFileSync("git", ["ls-files", "--cached", "--others", "--exclude-standard"], {
    cwd: root,
    encoding: "utf8",
  })
    .split("\n")
    .filter(
      (path) =>
        (path.startsWith("app/routes/") || path === "app/platform/toast.server.ts") &&
        /\.tsx?$/.test(path) &&
        !/\.test\.tsx?$/.test(path) &&
        existsSync(`${root}/${path}`),
    );
  const swallowing = files.flatMap((path) =>
    catchBlocks(readFileSync(`${root}/${path}`, "utf8"))
      .filter((block) => block.includes("console.error("))
      .filter((block) => !block.includes("throwIfDatabaseBusy(error)"))
      .filter((block) => !/^\s*throw error;/m.test(block))
      .map((block) => `${path}: ${block.split("\n")[0]}`),
  );
  expect(swallowing).toEqual([]);
});
