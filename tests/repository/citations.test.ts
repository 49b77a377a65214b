import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
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

function trackedTextFiles(): string[] {
  return execFileSync("git", ["ls-files"], { cwd: root, encoding: "utf8" })
    .split("\n")
    .filter((path) => /\.(ts|tsx|js|mjs|md|json|toml|yml|sh)$/.test(path))
    .filter(
      (path) => path !== "package-lock.json" && path !== "tests/repository/citations.test.ts",
    );
}

describe("the project stands alone", () => {
  test("no file cites the spec or the decisions page outside the repository", () => {
    const offending = trackedTextFiles().flatMap((path) =>
      readFileSync(`${root}/${path}`, "utf8")
        .split("\n")
        .flatMap((line, index) =>
          citationOutsideTheRepository.test(line) ? [`${path}:${index + 1}: ${line.trim()}`] : [],
        ),
    );
    expect(offending).toEqual([]);
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
