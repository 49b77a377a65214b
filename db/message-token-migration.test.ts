import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { expect, test } from "vitest";
import { migrationsFolder } from "./connection";

/**
 * Migration issue_60_message_token gives every send a Message-ID token: one
 * opened before it keeps its id, so a copy it still sends carries the
 * Message-ID its other copies went out with.
 */
function applyMigrations(db: Database.Database, files: string[]) {
  for (const file of files) {
    const text = fs.readFileSync(path.join(migrationsFolder(), file), "utf8");
    for (const statement of text.split("--> statement-breakpoint")) db.exec(statement);
  }
}

test("sends opened before the token keep their id as their token, and tokens stay unique", () => {
  const db = new Database(":memory:");
  const files = fs
    .readdirSync(migrationsFolder())
    .filter((file) => file.endsWith(".sql"))
    .sort();
  const tokenIndex = files.findIndex((file) => file.includes("message_token"));
  applyMigrations(db, files.slice(0, tokenIndex));
  db.prepare("insert into users (email) values ('sender@example.test')").run();
  db.prepare(
    "insert into folders (user_id, name, recipients) values (1, 'Family', json('[]'))",
  ).run();
  const open = db.prepare(
    "insert into send_ledger (folder_id, occurrence_key, trigger, status) values (1, ?, 'schedule', 'sending')",
  );
  open.run("2026-11-30");
  open.run("2026-12-07");

  applyMigrations(db, files.slice(tokenIndex));

  expect(db.prepare("select id, message_token from send_ledger order by id").all()).toEqual([
    { id: 1, message_token: "1" },
    { id: 2, message_token: "2" },
  ]);
  expect(() =>
    db
      .prepare(
        "insert into send_ledger (folder_id, occurrence_key, trigger, message_token) values (1, '2026-12-14', 'schedule', '2')",
      )
      .run(),
  ).toThrow(/UNIQUE/);
});
