import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

/**
 * The second half of `npm run build` (after `remix build`): what runs in
 * production beside the Remix build, compiled to plain JavaScript so that no
 * process needs TypeScript at run time. Packages stay imports of
 * node_modules; our own modules (and the path aliases of tsconfig.json) are
 * bundled in. (esbuild's `packages: "external"` would also take the aliases
 * for packages, hence the list.) docs/decisions/0083-one-build.md.
 *
 * - build/server/index.js: the HTTP server (server/index.ts), which loads build/index.js;
 * - build/server/scheduler-worker.js: the scheduler's thread;
 * - build/server/heic-worker.js: a HEIC photo's thread;
 * - build/scripts/*.js: the operator's commands that run inside the image;
 * - build/node-version-guard.js: imported first by each of those, so that on another Node
 *   major than .node-version's they stop with one line before any package is loaded
 *   (scripts/node-version-guard.ts).
 */
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

export const OPERATOR_SCRIPTS = [
  "admin-grant",
  "admin-revoke",
  "db-backup",
  "db-migrate",
  "db-restore",
  "send-due",
  "two-factor-reset",
];

// The Node every bundle is compiled for and insists on: production's (.node-version, the
// Dockerfile's major).
const nodeMajor = fs.readFileSync(path.join(root, ".node-version"), "utf8").trim().split(".")[0]!;

const manifest = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8"));
// drizzle-orm is bundled, as in the Remix build (remix.config.js says why).
const BUNDLED = new Set(["drizzle-orm"]);
const packages = Object.keys({ ...manifest.dependencies, ...manifest.devDependencies }).filter(
  (name) => !BUNDLED.has(name),
);

const shared = {
  absWorkingDir: root,
  bundle: true,
  platform: "node",
  format: "esm",
  target: `node${nodeMajor}`,
  external: packages.flatMap((name) => [name, `${name}/*`]),
  jsx: "automatic",
  sourcemap: true,
  logLevel: "warning",
} as const;

/** Each entry's first line: an import is evaluated before the bundle's own (hoisted) imports. */
const guarded = { ...shared, banner: { js: 'import "../node-version-guard.js";' } };

await Promise.all([
  build({
    ...shared,
    entryPoints: { "node-version-guard": "scripts/node-version-guard.ts" },
    outdir: "build",
    define: { REQUIRED_NODE_MAJOR: JSON.stringify(nodeMajor) },
  }),
  build({
    ...guarded,
    entryPoints: {
      index: "server/index.ts",
      "scheduler-worker": "app/modules/sending/scheduler-worker.ts",
      "heic-worker": "app/modules/files/heic-worker.ts",
    },
    outdir: "build/server",
  }),
  build({
    ...guarded,
    entryPoints: Object.fromEntries(OPERATOR_SCRIPTS.map((name) => [name, `scripts/${name}.ts`])),
    outdir: "build/scripts",
  }),
]);
