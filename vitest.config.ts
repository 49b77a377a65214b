import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

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
    include: [
      "app/**/*.test.{ts,tsx}",
      "db/**/*.test.ts",
      "emails/**/*.test.{ts,tsx}",
      "storage/**/*.test.ts",
      "tests/integration/**/*.test.ts",
      "tests/repository/**/*.test.ts",
      "server/**/*.test.ts",
    ],
    setupFiles: ["./tests/setup/isolated-environment.ts"],
    pool: "forks",
    testTimeout: 20_000,
    hookTimeout: 30_000,
  },
});
