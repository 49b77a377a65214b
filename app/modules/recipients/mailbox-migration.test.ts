import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import fc from "fast-check";
import { expect, test } from "vitest";
import { migrationsFolder } from "#db/connection";
import { canonicalEmail, mailboxKey } from "~/platform/email-address";

/**
 * Migration 0012 computes each stored opt-out's mailbox in SQL; it must be
 * the key `mailboxKey` gives the same address, and where two spellings of one
 * mailbox meet, the opt-out wins (docs/decisions/0110-one-mailbox-one-opt-out.md).
 */
function applyMigrations(db: Database.Database, files: string[]) {
  for (const file of files) {
    const text = fs.readFileSync(path.join(migrationsFolder(), file), "utf8");
    for (const statement of text.split("--> statement-breakpoint")) db.exec(statement);
  }
}

const LISTED = [
  "ada@example.com",
  "ada+news@example.com",
  "ADA+x+y@example.com",
  "+solo@example.com",
  "a.b@gmail.com",
  "ab+news@gmail.com",
  "A.B@googlemail.com",
  "a.b.c+d.e@googlemail.com",
  "a.b@mail.gmail.com",
  "a.b@gmail.co",
  "zoë+x@bücher.test",
  "first.last+tag@example.co.uk",
];

/** Many addresses as they are stored: canonical, in every shape the form lets through. */
function storedAddresses() {
  const local = fc.stringMatching(/^[a-zA-Z0-9][a-zA-Z0-9.+_-]{0,10}$/);
  const domain = fc.constantFrom(
    "gmail.com",
    "GoogleMail.com",
    "example.com",
    "mail.example.org",
    "gmail.co",
    "xn--bcher-kva.test",
  );
  const generated = fc.sample(
    fc.tuple(local, domain).map(([name, host]) => `${name}@${host}`),
    { numRuns: 600, seed: 33 },
  );
  return [
    ...new Set([...LISTED, ...generated].flatMap((address) => canonicalEmail(address) ?? [])),
  ];
}

const RANK = { active: 0, bounced: 1, unsubscribed: 2 } as const;
const STATUSES = ["active", "bounced", "unsubscribed"] as const;

test("stored opt-outs get the mailbox mailboxKey gives, and the opt-out wins a merge", () => {
  const db = new Database(":memory:");
  const files = fs
    .readdirSync(migrationsFolder())
    .filter((file) => file.endsWith(".sql"))
    .sort();
  const mailboxIndex = files.findIndex((file) => file.includes("issue_33"));
  applyMigrations(db, files.slice(0, mailboxIndex));
  db.prepare("insert into users (email) values ('sender@example.test')").run();
  db.prepare("insert into folders (user_id, name) values (1, 'Family')").run();
  const addresses = storedAddresses();
  expect(addresses.length).toBeGreaterThan(400);
  const insertOptOut = db.prepare("insert into email_unsubscribes (email) values (?)");
  const insertState = db.prepare(
    "insert into folder_recipient_states (folder_id, email, status) values (1, ?, ?)",
  );
  const strongest = new Map<string, number>();
  addresses.forEach((address, index) => {
    const status = STATUSES[index % STATUSES.length]!;
    insertOptOut.run(address);
    insertState.run(address, status);
    const key = mailboxKey(address)!;
    strongest.set(key, Math.max(strongest.get(key) ?? 0, RANK[status]));
  });
  expect(strongest.size).toBeLessThan(addresses.length);

  applyMigrations(db, [files[mailboxIndex]!]);

  const optOuts = db.prepare("select email, mailbox from email_unsubscribes").all() as {
    email: string;
    mailbox: string;
  }[];
  for (const row of optOuts) expect(row.mailbox).toBe(mailboxKey(row.email));
  expect(optOuts.map((row) => row.mailbox).sort()).toEqual([...strongest.keys()].sort());

  const states = db.prepare("select email, mailbox, status from folder_recipient_states").all() as {
    email: string;
    mailbox: string;
    status: keyof typeof RANK;
  }[];
  for (const row of states) expect(row.mailbox).toBe(mailboxKey(row.email));
  expect(states).toHaveLength(strongest.size);
  for (const row of states) expect(RANK[row.status]).toBe(strongest.get(row.mailbox));
});
