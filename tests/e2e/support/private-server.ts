import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { openDatabase } from "#db/connection";
import { type Server, startServer, stopServer, waitForHealth } from "../../support/app-server";
import { freePort } from "../../support/free-port";
import { test } from "../fixtures";

type AppDatabase = ReturnType<typeof openDatabase>;

/**
 * A production server of one test file's own, on a private data directory,
 * for tests that break or reconfigure what the shared server relies on (a
 * table renamed, billing switched off). It starts before the file's tests and
 * is stopped and removed after them; the file must run its tests serially.
 */
export function startPrivateServer(label: string, env: Record<string, string> = {}) {
  let server: Server | null = null;
  let dataDir = "";
  let origin = "";
  let database: AppDatabase | null = null;

  test.beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `thoughtfully-e2e-${label}-`));
    const port = await freePort();
    origin = `http://127.0.0.1:${port}`;
    server = startServer(port, dataDir, {
      SESSION_SECRET: process.env.E2E_SESSION_SECRET!,
      ...env,
    });
    await waitForHealth(origin, server);
    database = openDatabase(path.join(dataDir, "app.db"), { migrate: false });
  });

  test.afterAll(async () => {
    database?.$client.close();
    if (server) await stopServer(server);
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  return {
    get origin() {
      return origin;
    },
    get database(): AppDatabase {
      if (!database) throw new Error(`The ${label} server has not started`);
      return database;
    },
  };
}
