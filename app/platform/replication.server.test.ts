import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { beforeAll, expect, test } from "vitest";

/**
 * The primary/replica switch as LiteFS drives it: a `.primary` file in
 * LITEFS_DIR naming another machine marks a replica. Read at every check, so
 * a promotion or a demotion takes effect at the next tick without a restart.
 */
const litefsDir = fs.mkdtempSync(path.join(os.tmpdir(), "thoughtfully-litefs-"));
process.env.LITEFS_DIR = litefsDir;
const primaryFile = path.join(litefsDir, ".primary");
const { onPrimaryOnly, replayWritesToPrimary } = await import("./replication.server");
const { holdScheduler, schedulerHoldPath } = await import("#db/restore");
const { env } = await import("./env.server");

beforeAll(() => {
  fs.rmSync(primaryFile, { force: true });
});

test("a job runs on the primary, not on a replica, and again once promoted", async () => {
  let runs = 0;
  const tick = onPrimaryOnly(() => {
    runs += 1;
  });
  await tick();
  expect(runs).toBe(1);
  fs.writeFileSync(primaryFile, "another-machine\n");
  await tick();
  expect(runs).toBe(1);
  fs.rmSync(primaryFile);
  await tick();
  expect(runs).toBe(2);
});

test("a restore's hold stops every job until it is removed", async () => {
  let runs = 0;
  const tick = onPrimaryOnly(() => {
    runs += 1;
  });
  holdScheduler(env.BACKUP_DIR, "Restored app-2026-11-20.db.");
  await tick();
  expect(runs).toBe(0);
  fs.rmSync(schedulerHoldPath(env.BACKUP_DIR));
  await tick();
  expect(runs).toBe(1);
});

test("a replica answers writes with fly-replay to the primary; reads pass", async () => {
  const post = new Request("http://localhost/folders/new", { method: "POST" });
  await expect(replayWritesToPrimary(post)).resolves.toBeUndefined();
  fs.writeFileSync(primaryFile, "another-machine\n");
  try {
    for (const method of ["GET", "HEAD"]) {
      await expect(
        replayWritesToPrimary(new Request("http://localhost/", { method })),
      ).resolves.toBeUndefined();
    }
    for (const method of ["POST", "PUT", "PATCH", "DELETE"]) {
      const thrown = await replayWritesToPrimary(
        new Request("http://localhost/folders/new", { method }),
      ).catch((caught: unknown) => caught);
      expect(thrown, method).toBeInstanceOf(Response);
      expect((thrown as Response).headers.get("fly-replay")).toBe("instance=another-machine");
    }
  } finally {
    fs.rmSync(primaryFile);
  }
});

/** Actions that do not start with the CSRF check (which replays) must replay first themselves. */
test("every action replays on a replica before it reads its body", () => {
  const routesDir = path.resolve("app/routes");
  const files = fs
    .readdirSync(routesDir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && /\.tsx?$/.test(entry.name))
    .map((entry) => path.join(entry.parentPath, entry.name));
  const withActions = files
    .map((file) => ({
      route: path.relative(routesDir, file),
      source: fs.readFileSync(file, "utf8"),
    }))
    .filter(({ source }) => /export\s+(async\s+)?function\s+action/.test(source));
  expect(withActions.length).toBeGreaterThan(5);
  for (const { route, source } of withActions) {
    const action = source.slice(source.search(/export\s+(async\s+)?function\s+action/));
    const replay = action.indexOf("replayWritesToPrimary(");
    const csrf = action.search(/readProtectedForm\(|validateCsrf\(/);
    const body = action.search(
      /request\.formData\(|withUpload\(|readInboundEmail\(|request\.text\(/,
    );
    const firstGuard = [replay, csrf].filter((index) => index >= 0).sort((a, b) => a - b)[0];
    expect(firstGuard, `${route} never replays`).toBeDefined();
    if (body >= 0)
      expect(firstGuard!, `${route} reads its body before replaying`).toBeLessThan(body);
  }
});
