import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { describe, expect, test } from "vitest";
import { openDatabase } from "#db/connection";
import { createFolder, createUser } from "#db/factories";
import { unsubscribeToken } from "~/modules/recipients/recipient-links.server";
import { startBuiltServer, tempDir, waitUntil } from "../support/integration";

/**
 * A LiteFS replica, simulated the way LiteFS marks one: a `.primary` file in
 * LITEFS_DIR naming another machine. The production build on it serves
 * reads, answers every write with `fly-replay` to that machine without
 * touching the database, and runs no job even with SCHEDULER=on. The same
 * server without the file (the primary) writes and runs its jobs.
 */
const dataDir = tempDir();
const litefsDir = path.join(dataDir, "litefs");
const databasePath = path.join(dataDir, "app.db");

function seed() {
  fs.mkdirSync(litefsDir, { recursive: true });
  const db = openDatabase(databasePath);
  try {
    return createFolder(db, createUser(db, { email: "sender@example.com" }).id);
  } finally {
    db.$client.close();
  }
}

function count(table: string) {
  const db = new Database(databasePath, { readonly: true, fileMustExist: true });
  try {
    return db.prepare(`SELECT count(*) FROM ${table}`).pluck().get() as number;
  } finally {
    db.close();
  }
}

function start() {
  return startBuiltServer({ LITEFS_DIR: litefsDir, SCHEDULER: "on" }, { dataDir });
}

describe("LiteFS primary and replica", () => {
  test("a replica reads, replays every write to the primary and runs no job; the primary does both", async () => {
    const folder = seed();
    const query = new URLSearchParams({
      folder: String(folder.id),
      email: "mum@example.com",
      token: unsubscribeToken(folder.id, "mum@example.com"),
    });
    const oneClick = (base: string) =>
      fetch(`${base}/unsubscribe?${query}`, {
        method: "POST",
        body: new URLSearchParams({ "List-Unsubscribe": "One-Click" }),
        redirect: "manual",
      });

    fs.writeFileSync(path.join(litefsDir, ".primary"), "primary-machine\n");
    const replica = await start();
    let base = replica.base;
    await waitUntil(
      () => replica.stdout().includes("[jobs] paused: this machine is a replica"),
      10_000,
      "The replica's jobs paused",
    );

    const page = await fetch(`${base}/unsubscribe?${query}`);
    expect(page.status).toBe(200);
    await page.arrayBuffer();

    const replayed = await oneClick(base);
    expect(replayed.headers.get("fly-replay")).toBe("instance=primary-machine");
    const login = await fetch(`${base}/login`, {
      method: "POST",
      body: new URLSearchParams({ email: "sender@example.com", password: "whatever-it-is" }),
      redirect: "manual",
    });
    expect(login.headers.get("fly-replay")).toBe("instance=primary-machine");
    const enhanced = await fetch(`${base}/unsubscribe.data?${query}`, {
      method: "POST",
      body: new URLSearchParams({ scope: "everything" }),
      redirect: "manual",
    });
    expect(enhanced.headers.get("fly-replay")).toBe("instance=primary-machine");

    expect(count("folder_recipient_states")).toBe(0);
    expect(count("email_unsubscribes")).toBe(0);
    expect(count("analytics_snapshots")).toBe(0);
    await replica.stop();

    // Promoted: LiteFS removes the file on the machine that holds the lease.
    fs.rmSync(path.join(litefsDir, ".primary"));
    base = (await start()).base;
    const written = await oneClick(base);
    expect(written.status).toBe(200);
    expect(written.headers.get("fly-replay")).toBeNull();
    expect(count("folder_recipient_states")).toBe(1);
    // The jobs start with the server; the analytics snapshot is taken at once.
    await waitUntil(() => count("analytics_snapshots") === 1, 10_000, "The primary's snapshot");
  }, 60_000);
});
