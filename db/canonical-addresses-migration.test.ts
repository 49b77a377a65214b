import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { expect, test } from "vitest";
import { migrationsFolder } from "./connection";

/**
 * Migration 0004 rewrites the recipient addresses stored before canonical
 * forms existed: a spelling with a display name, brackets, spaces or capitals
 * becomes the bare lower-case address, and where two spellings of one
 * address meet in a folder, the opt-out wins.
 */
function applyMigrations(db: Database.Database, files: string[]) {
  for (const file of files) {
    const text = fs.readFileSync(path.join(migrationsFolder(), file), "utf8");
    for (const statement of text.split("--> statement-breakpoint")) db.exec(statement);
  }
}

test("stored addresses become canonical and opt-outs survive the merge", () => {
  const db = new Database(":memory:");
  const files = fs
    .readdirSync(migrationsFolder())
    .filter((file) => file.endsWith(".sql"))
    .sort();
  const canonicalIndex = files.findIndex((file) => file.includes("issue_16"));
  applyMigrations(db, files.slice(0, canonicalIndex));
  db.prepare("insert into users (email) values ('sender@example.test')").run();
  db.prepare(
    "insert into folders (user_id, name, recipients, recipient_email) values (1, 'Family', json(?), ?)",
  ).run(
    JSON.stringify([
      { name: "Victim", email: " Victim <VICTIM@Example.test>" },
      { name: "Wren", email: "wren@example.test" },
    ]),
    " <Legacy@Example.TEST> ",
  );
  const insertState = db.prepare(
    "insert into folder_recipient_states (folder_id, email, status) values (1, ?, ?)",
  );
  insertState.run("victim@example.test", "active");
  insertState.run("<Victim@example.test>", "unsubscribed");
  insertState.run("WREN@example.test", "bounced");
  insertState.run("wren@example.test", "active");
  const insertOptOut = db.prepare("insert into email_unsubscribes (email) values (?)");
  insertOptOut.run(" Gone <Gone@Example.test>");
  insertOptOut.run("gone@example.test ");

  applyMigrations(db, [files[canonicalIndex]!]);

  const folder = db.prepare("select recipients, recipient_email from folders").get() as {
    recipients: string;
    recipient_email: string;
  };
  expect(JSON.parse(folder.recipients)).toEqual([
    { name: "Victim", email: "victim@example.test" },
    { name: "Wren", email: "wren@example.test" },
  ]);
  expect(folder.recipient_email).toBe("legacy@example.test");
  expect(
    db.prepare("select email, status from folder_recipient_states order by email").all(),
  ).toEqual([
    { email: "victim@example.test", status: "unsubscribed" },
    { email: "wren@example.test", status: "bounced" },
  ]);
  expect(db.prepare("select email from email_unsubscribes").all()).toEqual([
    { email: "gone@example.test" },
  ]);
});
