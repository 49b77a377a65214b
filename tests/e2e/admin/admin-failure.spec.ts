import { createUser as createUserRow } from "#db/factories";
import { userRoles } from "#db/schema";
import { expect, test } from "../fixtures";
import { enableTwoFactor, signInWithSecondFactor, uniqueEmail } from "../support/accounts";
import { startPrivateServer } from "../support/private-server";

/**
 * The admin dashboards when their figures cannot be read. Breaking the shared
 * test server's database would break every other test, so this file starts a
 * production server of its own on a private data directory, signs an admin in
 * there, and then renames a table the dashboards read: the server meets a real
 * SQLite error.
 */
test.describe.configure({ mode: "serial" });

const privateServer = startPrivateServer("admin-failure");

test("the admin dashboards show the spec's message when their figures cannot be read", async ({
  page,
  context,
}) => {
  const db = privateServer.database;
  const origin = privateServer.origin;
  const admin = createUserRow(db, {
    email: uniqueEmail("admin"),
    firstName: "Grace",
    lastName: "Admin",
  });
  db.insert(userRoles).values({ userId: admin.id, role: "admin", grantReason: "e2e" }).run();
  await enableTwoFactor(admin.id, db);
  await signInWithSecondFactor(context, admin.id, origin, db);

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
