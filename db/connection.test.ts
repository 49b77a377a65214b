import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { eq } from "drizzle-orm";
import { afterEach, describe, expect, test } from "vitest";
import { migrationsFolder, openDatabase, STATEMENTS_KEPT } from "./connection";
import { folders, users } from "./schema";

const expectedTables = [
  "analytics_snapshots",
  "content_items",
  "csrf_tokens",
  "email_attempts",
  "email_deliveries",
  "email_unsubscribes",
  "folder_recipient_states",
  "folders",
  "referral_codes",
  "referrals",
  "security_events",
  "security_rejections",
  "send_ledger",
  "send_ledger_recipients",
  "sessions",
  "user_roles",
  "users",
];

const opened: { close: () => void }[] = [];
function freshDatabase() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "thoughtfully-db-"));
  const db = openDatabase(path.join(dir, "app.db"));
  opened.push(db.$client);
  return db;
}

afterEach(() => {
  for (const sqlite of opened.splice(0)) sqlite.close();
});

describe("openDatabase", () => {
  test("applies the migrations: every stored record has its table", () => {
    const db = freshDatabase();
    const tables = db.$client
      .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
      .pluck()
      .all();
    expect(tables).toEqual(expect.arrayContaining(expectedTables));
  });

  test("runs in WAL mode with foreign keys, a busy timeout and synchronous=FULL", () => {
    const { $client: sqlite } = freshDatabase();
    expect(sqlite.pragma("journal_mode", { simple: true })).toBe("wal");
    expect(sqlite.pragma("foreign_keys", { simple: true })).toBe(1);
    expect(sqlite.pragma("busy_timeout", { simple: true })).toBe(5000);
    expect(sqlite.pragma("synchronous", { simple: true })).toBe(2);
  });

  test("is idempotent: opening a migrated file again changes nothing", () => {
    const db = freshDatabase();
    const file = db.$client.name;
    db.$client.close();
    const again = openDatabase(file);
    opened.push(again.$client);
    const count = again.$client.prepare("SELECT count(*) FROM __drizzle_migrations").pluck().get();
    const journal = JSON.parse(
      fs.readFileSync(path.join(migrationsFolder(), "meta/_journal.json"), "utf8"),
    ) as { entries: unknown[] };
    expect(count).toBe(journal.entries.length);
  });

  test("deleting a user cascades to what they own", () => {
    const db = freshDatabase();
    const [user] = db.insert(users).values({ email: "owner@example.com" }).returning().all();
    db.insert(folders)
      .values({
        userId: user!.id,
        name: "Family",
        recipients: [{ name: "Mum", email: "m@example.com" }],
      })
      .run();
    db.delete(users).where(eq(users.id, user!.id)).run();
    expect(db.select().from(folders).all()).toHaveLength(0);
  });

  test("timestamps default to whole milliseconds", () => {
    const db = freshDatabase();
    const before = Date.now();
    const [user] = db.insert(users).values({ email: "time@example.com" }).returning().all();
    expect(user!.createdAt.getTime()).toBeGreaterThanOrEqual(before - 1000);
    const raw = db.$client.prepare("SELECT typeof(created_at) FROM users").pluck().get();
    expect(raw).toBe("integer");
  });
});

describe("one statement per SQL text", () => {
  test("a query run again gets the statement compiled the first time", () => {
    const db = freshDatabase();
    const statementOf = (id: number) => {
      let prepared: unknown;
      const prepare = db.$client.prepare;
      db.$client.prepare = ((source: string) => {
        prepared = prepare.call(db.$client, source);
        return prepared;
      }) as typeof prepare;
      db.select({ id: users.id }).from(users).where(eq(users.id, id)).get();
      db.$client.prepare = prepare;
      return prepared;
    };
    expect(statementOf(1)).toBe(statementOf(2));
    expect(db.$client.prepare("SELECT 1")).not.toBe(db.$client.prepare("SELECT 2"));
  });

  test("one left in raw or pluck mode gives the next caller rows as objects", () => {
    const db = freshDatabase();
    db.insert(users).values({ email: "ada@example.com" }).run();
    const sql = "SELECT email FROM users";
    expect(db.$client.prepare(sql).pluck().get()).toBe("ada@example.com");
    expect(db.$client.prepare(sql).get()).toEqual({ email: "ada@example.com" });
    expect(db.$client.prepare(sql).raw().get()).toEqual(["ada@example.com"]);
    expect(db.$client.prepare(sql).get()).toEqual({ email: "ada@example.com" });
  });

  test("one still being iterated is not handed out twice", () => {
    const db = freshDatabase();
    db.insert(users)
      .values([{ email: "a@example.com" }, { email: "b@example.com" }])
      .run();
    const sql = "SELECT email FROM users ORDER BY email";
    const seen: unknown[] = [];
    for (const row of db.$client.prepare(sql).iterate()) {
      seen.push(row, db.$client.prepare(sql).all().length);
    }
    expect(seen).toEqual([{ email: "a@example.com" }, 2, { email: "b@example.com" }, 2]);
  });

  test("past the kept number of texts, the oldest is compiled again", () => {
    const db = freshDatabase();
    const first = db.$client.prepare("SELECT 0");
    for (let n = 1; n <= STATEMENTS_KEPT; n++) db.$client.prepare(`SELECT ${n}`);
    expect(db.$client.prepare("SELECT 0")).not.toBe(first);
    expect(db.$client.prepare(`SELECT ${STATEMENTS_KEPT}`)).toBe(
      db.$client.prepare(`SELECT ${STATEMENTS_KEPT}`),
    );
  });
});
