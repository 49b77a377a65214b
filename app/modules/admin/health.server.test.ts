import Database from "better-sqlite3";
import { afterEach, expect, test, vi } from "vitest";
import { db } from "~/platform/db.server";
import { checkDatabaseWrites, healthResponse } from "./health.server";

afterEach(() => {
  vi.restoreAllMocks();
});

test("answers 200 OK while the database answers and writes", async () => {
  const response = await healthResponse();
  expect(response.status).toBe(200);
  expect(await response.text()).toBe("OK");
});

test("answers 503 without the database's error text, which goes to the log", async () => {
  const logged = vi.spyOn(console, "error").mockImplementation(() => {});
  db.$client.exec("ALTER TABLE users RENAME TO users_away");
  try {
    const response = await healthResponse();
    expect(response.status).toBe(503);
    expect(await response.text()).toBe("Database unavailable");
  } finally {
    db.$client.exec("ALTER TABLE users_away RENAME TO users");
  }
  expect(String(logged.mock.calls[0]?.[0])).toContain("no such table: users");
});

test("answers 503 when the database reads but cannot write, and the write leaves nothing", async () => {
  const logged = vi.spyOn(console, "error").mockImplementation(() => {});
  const version = db.$client.prepare("PRAGMA user_version").pluck().get();
  db.$client.exec("PRAGMA query_only = ON");
  try {
    const response = await healthResponse();
    expect(response.status).toBe(503);
    expect(await response.text()).toBe("Database cannot write");
  } finally {
    db.$client.exec("PRAGMA query_only = OFF");
  }
  expect(String(logged.mock.calls[0]?.[0])).toBe(
    "[healthz] the database cannot write: attempt to write a readonly database",
  );
  expect(db.$client.prepare("PRAGMA user_version").pluck().get()).toBe(version);
  expect(db.$client.inTransaction).toBe(false);
});

test("a write lock held by another connection is writing, not a fault: answered at once", () => {
  const other = new Database(db.$client.name);
  other.exec("BEGIN IMMEDIATE");
  try {
    const started = performance.now();
    expect(checkDatabaseWrites()).toEqual({ ok: true });
    expect(performance.now() - started).toBeLessThan(500);
  } finally {
    other.exec("ROLLBACK");
    other.close();
  }
  // The connection's own wait for the lock is as it was.
  expect(db.$client.prepare("PRAGMA busy_timeout").pluck().get()).toBe(5000);
});
