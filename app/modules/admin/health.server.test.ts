import { afterEach, expect, test, vi } from "vitest";
import { db } from "~/platform/db.server";
import { healthResponse } from "./health.server";

afterEach(() => {
  vi.restoreAllMocks();
});

test("answers 200 OK while the database answers", async () => {
  const response = healthResponse();
  expect(response.status).toBe(200);
  expect(await response.text()).toBe("OK");
});

test("answers 503 without the database's error text, which goes to the log", async () => {
  const logged = vi.spyOn(console, "error").mockImplementation(() => {});
  db.$client.exec("ALTER TABLE users RENAME TO users_away");
  try {
    const response = healthResponse();
    expect(response.status).toBe(503);
    expect(await response.text()).toBe("Database unavailable");
  } finally {
    db.$client.exec("ALTER TABLE users_away RENAME TO users");
  }
  expect(String(logged.mock.calls[0]?.[0])).toContain("no such table: users");
});
