import { fileURLToPath } from "node:url";
import { configDefaults, defineConfig } from "vitest/config";

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

/**
 * The flood test (tests/integration/flood.test.ts) saturates the machine on purpose: gigabytes
 * over loopback, both cores busy, a server near its memory bound. Beside it, other files' time
 * limits and memory measurements (request-limits.test.ts) would fail by chance, and its own
 * figures would be the neighbours' too. So it is a project of its own in a later group: it
 * starts once every other file has finished, and runs alone.
 */
const FLOOD = "tests/integration/flood.test.ts";

export default defineConfig({
  resolve: {
    alias: {
      "~": here("./app"),
      "#db": here("./db"),
      "#emails": here("./emails"),
      "#storage": here("./storage"),
      "#server": here("./server"),
      "#tests": here("./tests"),
    },
  },
  test: {
    setupFiles: ["./tests/setup/isolated-environment.ts"],
    pool: "forks",
    testTimeout: 20_000,
    hookTimeout: 30_000,
    projects: [
      {
        extends: true,
        test: {
          name: "tests",
          include: [
            "app/**/*.test.{ts,tsx}",
            "db/**/*.test.ts",
            "emails/**/*.test.{ts,tsx}",
            "storage/**/*.test.ts",
            "tests/integration/**/*.test.ts",
            "tests/repository/**/*.test.ts",
            "server/**/*.test.ts",
          ],
          exclude: [...configDefaults.exclude, FLOOD],
          // Not 0: on a machine with one worker, Vitest 5 runs every group-0 file after all the
          // numbered groups, which would put the flood first.
          sequence: { groupOrder: 1 },
        },
      },
      {
        extends: true,
        test: {
          name: "flood",
          include: [FLOOD],
          sequence: { groupOrder: 2 },
        },
      },
    ],
  },
});
