import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, test } from "vitest";

const root = fileURLToPath(new URL("../..", import.meta.url));

/**
 * The project stands alone: code and docs cite only files inside the
 * repository. The product rules they rely on are written in
 * docs/product-rules.md, so a citation of the spec folder or its decisions page
 * outside the repository is a mistake.
 */
const citationOutsideTheRepository =
  /\.\.\/shared\b|\bshared\/(decisions\.md|spec)\b|\bspec 00\d\b/i;

/** The old one-page diary, split into docs/decisions/ (docs/decisions/README.md). */
const citationOfTheOldDecisionsPage = /\bdocs\/decisions\.md\b/;

/**
 * "The spec" as a source of rules: it is not in the repository, so a rule is
 * cited as a section of docs/product-rules.md instead. Test file names
 * (`x.spec.ts`) are not citations.
 */
const citationOfTheSpec = /(?<![\w./-])spec(?:'s)?(?![\w.-])/i;

/** Citations of the decision files and the performance page, each of which must exist. */
const citationOfADecisionOrPerformance =
  /\bdocs\/(?:decisions\/\d{4}-[a-z0-9-]+\.md|performance\.md)/g;

/** The comment on a line of code, or null: a comment line, or the text after ` // `. */
const commentOnLine = /(?:^\s*(?:\/\/|\/\*|\*|\{\/\*)|\s\/\/\s|\s\/\*)(.*)$/;

const codeFile = /\.(ts|tsx|js|mjs)$/;

function trackedTextFiles(): string[] {
  return execFileSync("git", ["ls-files"], { cwd: root, encoding: "utf8" })
    .split("\n")
    .filter((path) => /\.(ts|tsx|js|mjs|md|json|toml|yml|sh)$/.test(path))
    .filter(
      (path) => path !== "package-lock.json" && path !== "tests/repository/citations.test.ts",
    );
}

/** Every line of every tracked text file matching `check`, as "path:line: text". */
function offendingLines(check: (line: string, path: string) => boolean): string[] {
  return trackedTextFiles().flatMap((path) =>
    readFileSync(`${root}/${path}`, "utf8")
      .split("\n")
      .flatMap((line, index) =>
        check(line, path) ? [`${path}:${index + 1}: ${line.trim()}`] : [],
      ),
  );
}

/** Whether a line cites the spec: in code only within a comment, elsewhere anywhere. */
function citesTheSpec(line: string, path: string): boolean {
  if (path === "docs/product-rules.md") return false;
  if (!codeFile.test(path)) return citationOfTheSpec.test(line);
  const comment = commentOnLine.exec(line);
  return comment !== null && citationOfTheSpec.test(comment[1] ?? "");
}

function missingCitations(line: string): string[] {
  return [...line.matchAll(citationOfADecisionOrPerformance)]
    .map(([cited]) => cited)
    .filter((cited) => !existsSync(`${root}/${cited}`));
}

describe("the project stands alone", () => {
  test("no file cites the spec or the decisions page outside the repository", () => {
    expect(offendingLines((line) => citationOutsideTheRepository.test(line))).toEqual([]);
  });

  test("the check recognises each form of outside citation", () => {
    for (const line of [
      "(shared/decisions.md, Tiers)",
      "see ../shared/spec/README.md",
      "(spec 001, section 9)",
    ]) {
      expect(line).toMatch(citationOutsideTheRepository);
    }
    expect("(docs/product-rules.md, Tiers)").not.toMatch(citationOutsideTheRepository);
  });
});

describe("decisions a newcomer can find", () => {
  test("nothing cites the old docs/decisions.md", () => {
    expect(offendingLines((line) => citationOfTheOldDecisionsPage.test(line))).toEqual([]);
  });

  test('no comment or document cites "the spec"', () => {
    expect(offendingLines(citesTheSpec)).toEqual([]);
  });

  test("the spec check reads comments in code and whole lines elsewhere", () => {
    const cited: [line: string, path: string][] = [
      ["/** Spec: the success state moves on after 3 s. */", "app/a.ts"],
      [" * the spec's messages, by field.", "app/a.ts"],
      ["const delay = 3000; // as the spec says", "app/a.tsx"],
      ["Messages are the spec's wording.", "README.md"],
    ];
    for (const [line, path] of cited) expect(citesTheSpec(line, path), line).toBe(true);
    const notCited: [line: string, path: string][] = [
      ['test("shows the spec\'s message", () => {', "tests/e2e/a.spec.ts"],
      [" * Run tests/e2e/folders/folders.spec.ts twice.", "app/a.ts"],
      ["/** The success state moves on (docs/product-rules.md, Pages). */", "app/a.ts"],
      ["npx playwright test tests/e2e/x.spec.ts", "README.md"],
    ];
    for (const [line, path] of notCited) expect(citesTheSpec(line, path), line).toBe(false);
  });

  test("every cited decision file and docs/performance.md exists", () => {
    expect(offendingLines((line) => missingCitations(line).length > 0)).toEqual([]);
  });

  test("the existence check sees a citation of a file that is not there", () => {
    expect(missingCitations("see docs/decisions/0054-security-limits.md")).toEqual([]);
    expect(missingCitations("see docs/performance.md, bench:send")).toEqual([]);
    expect(missingCitations("see docs/decisions/0999-no-such-decision.md")).toEqual([
      "docs/decisions/0999-no-such-decision.md",
    ]);
  });

  test("every decision file is in the index, with its Date and Status lines", () => {
    const index = readFileSync(`${root}/docs/decisions/README.md`, "utf8");
    const problems = readdirSync(`${root}/docs/decisions`)
      .filter((name) => /^\d{4}-[a-z0-9-]+\.md$/.test(name))
      .flatMap((name) => {
        const text = readFileSync(`${root}/docs/decisions/${name}`, "utf8");
        return [
          index.includes(`(${name})`) ? [] : [`${name}: not in docs/decisions/README.md`],
          /^# \S/.test(text) ? [] : [`${name}: no "# Title" first line`],
          /^Date: \d{4}-\d{2}-\d{2}$/m.test(text) ? [] : [`${name}: no "Date: YYYY-MM-DD" line`],
          /^Status: (accepted|superseded by \d{4}(, \d{4})*)$/m.test(text)
            ? []
            : [`${name}: no "Status: accepted" or "Status: superseded by NNNN" line`],
        ].flat();
      });
    expect(problems).toEqual([]);
  });

  test("every file the index lists exists", () => {
    const index = readFileSync(`${root}/docs/decisions/README.md`, "utf8");
    const listed = [...index.matchAll(/\]\((\d{4}-[a-z0-9-]+\.md)\)/g)].map(([, name]) => name);
    expect(listed.length).toBeGreaterThan(0);
    expect(listed.filter((name) => !existsSync(`${root}/docs/decisions/${name}`))).toEqual([]);
  });
});
