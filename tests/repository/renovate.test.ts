import fs from "node:fs";
import path from "node:path";
import { describe, expect, test } from "vitest";

const root = path.resolve(import.meta.dirname, "../..");
const config = JSON.parse(fs.readFileSync(path.join(root, "renovate.json"), "utf8")) as {
  packageRules: { description?: string; allowedVersions?: string; matchPackageNames?: string[] }[];
};
const packageJson = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")) as {
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};

describe("renovate.json", () => {
  const holds = config.packageRules.filter((rule) => rule.allowedVersions);

  test("holds some packages back, each for a reason written down", () => {
    expect(holds.length).toBeGreaterThan(0);
    for (const rule of holds) {
      const cited = /docs\/decisions\/\d{4}-[\w-]+\.md/.exec(rule.description ?? "")?.[0];
      expect(cited, JSON.stringify(rule)).toBeDefined();
      expect(fs.existsSync(path.join(root, cited!)), cited).toBe(true);
    }
  });

  test("each package it holds is one the project has, at a version the hold allows", () => {
    const declared = { ...packageJson.dependencies, ...packageJson.devDependencies };
    for (const rule of holds) {
      const below = /^<(\d+)$/.exec(rule.allowedVersions!)?.[1];
      expect(below, rule.allowedVersions).toBeDefined();
      for (const name of rule.matchPackageNames ?? []) {
        const range = declared[name];
        expect(range, `${name} is in package.json`).toBeDefined();
        const major = Number(/\d+/.exec(range!)![0]);
        expect(major, name).toBeLessThan(Number(below));
      }
    }
  });
});
