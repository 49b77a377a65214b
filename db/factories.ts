import crypto from "node:crypto";
import type { AppDatabase } from "./connection";
import { contentItems, folders, users } from "./schema";
import type { Transaction } from "./types";

/**
 * Rows for tests, benches and the demo seed, with defaults a real sender
 * would have: one place that knows what a valid user, folder and item look
 * like. Each takes the database (or a transaction) to write to, so browser
 * tests use the server's file and unit tests the app's handle; db/ stays
 * below the app, so a password arrives already hashed.
 */
type Writer = AppDatabase | Transaction;

export function uniqueEmail(label = "sender") {
  return `${label}-${crypto.randomBytes(5).toString("hex")}@example.com`;
}

export function createUser(database: Writer, values: Partial<typeof users.$inferInsert> = {}) {
  return database
    .insert(users)
    .values({
      email: uniqueEmail(),
      firstName: "Ada",
      lastName: "Lovelace",
      emailVerified: true,
      ...values,
    })
    .returning()
    .get();
}

const THREE_DAYS_MS = 3 * 24 * 60 * 60 * 1000;

export function createFolder(
  database: Writer,
  userId: number,
  values: Partial<typeof folders.$inferInsert> = {},
) {
  return database
    .insert(folders)
    .values({
      userId,
      name: "Family",
      recipients: [{ name: "Mum", email: "mum@example.com" }],
      nextSendAt: new Date(Date.now() + THREE_DAYS_MS),
      ...values,
    })
    .returning()
    .get();
}

/** Without a type an item is a musing, the one kind that needs nothing but words. */
const MUSING = { type: "musing", title: "A thought", note: "A note" } as const;

export function createItem(
  database: Writer,
  folderId: number,
  values: Partial<typeof contentItems.$inferInsert> = {},
) {
  return database
    .insert(contentItems)
    .values(
      values.type === undefined || values.type === "musing"
        ? { folderId, ...MUSING, ...values }
        : { folderId, type: values.type, title: "Something to share", ...values },
    )
    .returning()
    .get();
}
