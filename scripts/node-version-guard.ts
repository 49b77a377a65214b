import fs from "node:fs";
import path from "node:path";

/**
 * The first module every built entry evaluates (build/server/*.js, build/scripts/*.js):
 * scripts/build-server.ts puts `import "../node-version-guard.js"` above each bundle's own
 * imports, and ES modules are evaluated in the order they are imported, so this runs before
 * any package. On another Node major than production's, better-sqlite3 would die without a
 * word (a segfault on Node 20); this says so in one line and exits instead
 * (docs/decisions/0241-operator-commands-on-the-projects-node.md).
 */

/** .node-version's major, written in by scripts/build-server.ts (esbuild's `define`). */
declare const REQUIRED_NODE_MAJOR: string;

const running = process.versions.node;
if (running.split(".")[0] !== REQUIRED_NODE_MAJOR) {
  const entry = path.relative(process.cwd(), process.argv[1] ?? "") || "Thoughtfully";
  // Written at once: process.exit does not wait for a piped stderr on every platform.
  fs.writeSync(
    2,
    `${entry} needs Node ${REQUIRED_NODE_MAJOR}; this is Node ${running}. Run it through npm run or bash scripts/with-node.sh, which bring Node ${REQUIRED_NODE_MAJOR} (.node-version).\n`,
  );
  process.exit(1);
}
