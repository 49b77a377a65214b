import path from "node:path";
import { pathToFileURL } from "node:url";
import { type AppConfig, UNSAFE_defineRoutes as defineRoutes } from "@remix-run/dev";
import { afterEach, expect, test, vi } from "vitest";
import { repoRoot } from "#tests/support/app-server";

/** The paths of the route tree remix.config.js gives the build, as `remix build` reads it. */
async function routePaths() {
  const configUrl = pathToFileURL(path.join(repoRoot, "remix.config.js")).href;
  const config: AppConfig = (await import(configUrl)).default;
  const routes = await config.routes!(defineRoutes);
  return Object.values(routes).map((route) => route.path);
}

afterEach(() => {
  vi.unstubAllEnvs();
});

test("a build leaves the benchmark's baseline page out of the route tree", async () => {
  vi.stubEnv("BENCH", "");
  const paths = await routePaths();
  expect(paths).toContain("login");
  expect(paths).not.toContain("bench/minimal");
});

test("a bench build (BENCH=1, made by bench/dashboard.ts) has it", async () => {
  vi.stubEnv("BENCH", "1");
  expect(await routePaths()).toContain("bench/minimal");
});
