import fs from "node:fs";
import path from "node:path";

/**
 * fly.toml's NODE_OPTIONS (the heap the deployed machine gives V8), for tests that measure memory
 * as production holds it. Read from fly.toml so the two cannot drift apart.
 */
export const PRODUCTION_NODE_OPTIONS = /^\s*NODE_OPTIONS = "([^"]+)"/m.exec(
  fs.readFileSync(path.resolve(import.meta.dirname, "../../fly.toml"), "utf8"),
)![1]!;

/** The same options as arguments of `node`. */
export const PRODUCTION_HEAP_FLAGS = PRODUCTION_NODE_OPTIONS.split(/\s+/);
