import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { repoRoot, requireBuild } from "../support/app-server";
import { tempDir } from "../support/integration";

/**
 * Every built entry (the server, its scheduler thread, the operator's commands) started on
 * another Node major than .node-version's stops with one line, before any package is loaded:
 * on Node 20, better-sqlite3 13 died with a segfault and no word. The wrong Node is this one
 * told another version (a preload rewrites `process.versions.node`), so no second Node need be
 * installed. Needs `npm run build` first.
 */
requireBuild();

const requiredMajor = Number(
  fs.readFileSync(path.join(repoRoot, ".node-version"), "utf8").trim().split(".")[0],
);

const builtEntries = ["build/server", "build/scripts"].flatMap((dir) =>
  fs
    .readdirSync(path.join(repoRoot, dir))
    .filter((name) => name.endsWith(".js"))
    .map((name) => `${dir}/${name}`),
);

const packageScripts = Object.values(
  JSON.parse(fs.readFileSync(path.join(repoRoot, "package.json"), "utf8")).scripts as Record<
    string,
    string
  >,
);

/**
 * A preload that makes this Node say it is `version`; with `refusePackages`, loading a package
 * (the CommonJS loader, which every package here goes through) or a native addon throws, so a
 * guard that ran only after the packages were evaluated would fail.
 */
function preload(version: string, { refusePackages }: { refusePackages: boolean }) {
  const code = `
    import Module from "node:module";
    Object.defineProperty(process, "versions", {
      value: { ...process.versions, node: ${JSON.stringify(version)} },
    });
    if (${refusePackages}) {
      Module._load = (request) => { throw new Error("loaded before the guard: " + request); };
      process.dlopen = (_, file) => { throw new Error("loaded before the guard: " + file); };
    }
  `;
  return `--import=data:text/javascript,${encodeURIComponent(code)}`;
}

function runAs(version: string, entry: string, refusePackages = true) {
  const dataDir = tempDir("thoughtfully-guard-");
  return spawnSync(process.execPath, [preload(version, { refusePackages }), entry], {
    cwd: repoRoot,
    env: {
      ...process.env,
      DATABASE_PATH: path.join(dataDir, "app.db"),
      STORAGE_DIR: path.join(dataDir, "uploads"),
      OUTBOX_DIR: path.join(dataDir, "outbox"),
    },
    encoding: "utf8",
    timeout: 15_000,
  });
}

describe("the built entries on another Node", () => {
  test("every entry npm's scripts start with node is built, and guarded here", () => {
    const run = packageScripts.flatMap((script) =>
      [...script.matchAll(/\bnode (build\/[\w/-]+\.js)/g)].map((match) => match[1]!),
    );
    expect(run.length).toBeGreaterThan(0);
    for (const entry of run) expect(builtEntries).toContain(entry);
  });

  for (const version of ["20.20.2", `${requiredMajor + 2}.0.0`]) {
    test(`each stops on Node ${version} with one line saying which Node it needs`, () => {
      for (const entry of builtEntries) {
        const result = runAs(version, entry);
        expect(result.stdout, entry).toBe("");
        expect(result.stderr, entry).toBe(
          `${entry} needs Node ${requiredMajor}; this is Node ${version}. Run it through npm run or bash scripts/with-node.sh, which bring Node ${requiredMajor} (.node-version).\n`,
        );
        expect(result.status, entry).toBe(1);
      }
    });
  }

  test("another release of the same major runs", () => {
    const result = runAs(`${requiredMajor}.0.0`, "build/scripts/db-migrate.js", false);
    expect(result.stderr).toBe("");
    expect(result.stdout).toMatch(/^Migrated /);
    expect(result.status).toBe(0);
  });
});
