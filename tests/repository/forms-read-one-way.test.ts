import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { expect, test } from "vitest";

const root = fileURLToPath(new URL("../..", import.meta.url));

/**
 * Routes read a form one way: conform with zod (`parseWithZod`) or
 * `parseIntentForm`, never field by field. The RFC 8058 one-click body of
 * unsubscribe.tsx is not a form of ours and is read as the RFC says.
 * docs/decisions/0114-every-form-read-one-way.md.
 */
const BY_HAND = [
  { pattern: /\b\w*[fF]orm(?:Data)?\.(?:get|getAll|has)\(/, what: "reads a field by hand" },
  { pattern: /Object\.fromEntries\(\s*[\w.]*[fF]orm/, what: "turns a form into an object by hand" },
  { pattern: /request\.formData\(\)/, what: "reads the body without the CSRF check" },
];

/** `onValidate` hands conform's own FormData to `parseWithZod` in the browser. */
const ALLOWED_LINE = /onValidate|parseWithZod\(|parseIntentForm\(/;

const ONE_CLICK = "app/routes/unsubscribe.tsx";

function routeFiles(): string[] {
  return execFileSync(
    "git",
    ["ls-files", "--cached", "--others", "--exclude-standard", "app/routes"],
    { cwd: root, encoding: "utf8" },
  )
    .split("\n")
    .filter((path) => /\.tsx?$/.test(path) && existsSync(`${root}/${path}`));
}

test("no route reads a form field by hand", () => {
  const offending = routeFiles().flatMap((path) =>
    readFileSync(`${root}/${path}`, "utf8")
      .split("\n")
      .flatMap((line, index) =>
        BY_HAND.filter(({ pattern }) => pattern.test(line) && !ALLOWED_LINE.test(line)).map(
          ({ what }) => `${path}:${index + 1} ${what}: ${line.trim()}`,
        ),
      ),
  );
  expect(offending.filter((line) => !line.startsWith(`${ONE_CLICK}:`))).toEqual([]);
});

test("the one-click exception reads only the RFC 8058 body by hand", () => {
  const source = readFileSync(`${root}/${ONE_CLICK}`, "utf8");
  const byHand = source
    .split("\n")
    .filter((line) => BY_HAND.some(({ pattern }) => pattern.test(line)));
  expect(byHand.map((line) => line.trim())).toEqual([
    "const form = await request.formData().catch(() => new FormData());",
    'if (form.get("List-Unsubscribe") === "One-Click") {',
  ]);
});
