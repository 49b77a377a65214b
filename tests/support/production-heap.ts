import fs from "node:fs";
import path from "node:path";

/**
 * fly.toml's NODE_OPTIONS (the heap the deployed machine gives V8) and allocator settings, for tests that measure memory
 * as production holds it. Read from fly.toml so the two cannot drift apart.
 */
const flyToml = fs.readFileSync(path.resolve(import.meta.dirname, "../../fly.toml"), "utf8");
const flyEnv = (name: string) => new RegExp(`^\\s*${name} = "([^"]+)"`, "m").exec(flyToml)![1]!;

export const PRODUCTION_NODE_OPTIONS = flyEnv("NODE_OPTIONS");

/** fly.toml's memory settings as a server's environment: the heap, and glibc's allocator. */
export const PRODUCTION_MEMORY_ENV = {
  NODE_OPTIONS: PRODUCTION_NODE_OPTIONS,
  MALLOC_ARENA_MAX: flyEnv("MALLOC_ARENA_MAX"),
  MALLOC_MMAP_THRESHOLD_: flyEnv("MALLOC_MMAP_THRESHOLD_"),
  MALLOC_TRIM_THRESHOLD_: flyEnv("MALLOC_TRIM_THRESHOLD_"),
};

/** The same options as arguments of `node`. */
export const PRODUCTION_HEAP_FLAGS = PRODUCTION_NODE_OPTIONS.split(/\s+/);
