import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { openDatabase } from "#db/connection";
import { userRoles, users } from "#db/schema";
import { type Server, startServer, stopServer, waitForHealth } from "../support/app-server";
import { freePort } from "../support/free-port";
import { expect, test } from "./fixtures";
import { enableTwoFactor, signIn, uniqueEmail } from "./support/accounts";

/**
 * The admin dashboards when their figures cannot be read. Breaking the shared
 * test server's database would break every other test, so this file starts a
 * production server of its own on a private data directory, signs an admin in
 * there, and then renames a table the dashboards read: the server meets a real
 * SQLite error.
 */
test.describe.configure({ mode: "serial" });

let server: Server | null = null;
let dataDir = "";
let origin = "";
let database: ReturnType<typeof openDatabase> | null = null;

test.beforeAll(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "thoughtfully-e2e-admin-failure-"));
  const port = await freePort();
  origin = `http://127.0.0.1:${port}`;
  server = startServer(port, dataDir, { SESSION_SECRET: process.env.E2E_SESSION_SECRET! });
  await waitForHealth(origin, server);
  database = openDatabase(path.join(dataDir, "app.db"), { migrate: false });
});

test.afterAll(async () => {
  database?.$client.close();
  if (server) await stopServer(server);
  fs.rmSync(dataDir, { recursive: true, force: true });
});

test("the admin dashboards show the spec's message when their figures cannot be read", async ({
  page,
  context,
}) => {
  const db = database!;
  const admin = db
    .insert(users)
    .values({
      email: uniqueEmail("admin"),
      firstName: "Grace",
      lastName: "Admin",
      emailVerified: true,
    })
    .returning()
    .get();
  db.insert(userRoles).values({ userId: admin.id, role: "admin", grantReason: "e2e" }).run();
  await enableTwoFactor(admin.id, db);
  await signIn(context, admin.id, origin, db);

  await page.goto(`${origin}/admin/dashboard`);
  await expect(page.getByRole("heading", { level: 1, name: "Admin Dashboard" })).toBeVisible();

  db.$client.exec(
    "DROP TABLE IF EXISTS security_events_backup; ALTER TABLE security_events RENAME TO security_events_backup",
  );
  try {
    for (const [address, message] of [
      ["/admin/dashboard", "Failed to load admin dashboard data"],
      ["/admin/dashboard?tab=security", "Failed to load security data"],
      ["/admin/security", "Failed to load security dashboard data"],
    ] as const) {
      const response = await page.goto(`${origin}${address}`);
      expect(response?.status(), address).toBe(500);
      const alert = page.getByRole("alert");
      await expect(alert.getByRole("heading", { level: 1, name: message })).toBeVisible();
      await expect(alert.getByRole("link", { name: "Try again" })).toHaveAttribute("href", address);
    }
  } finally {
    db.$client.exec("ALTER TABLE security_events_backup RENAME TO security_events");
  }
  await page.getByRole("link", { name: "Try again" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Security Dashboard" })).toBeVisible();
});
