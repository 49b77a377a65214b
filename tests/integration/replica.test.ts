import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { afterEach, describe, expect, test } from "vitest";
import { openDatabase } from "#db/connection";
import { createFolder, createUser } from "#db/factories";
import { unsubscribeToken } from "~/modules/recipients/recipient-links.server";
import {
  requireBuild,
  type Server,
  startServer,
  stopServer,
  waitForHealth,
} from "../support/app-server";
import { freePort } from "../support/free-port";

/**
 * A LiteFS replica, simulated the way LiteFS marks one: a `.primary` file in
 * LITEFS_DIR naming another machine. The production build on it serves
 * reads, answers every write with `fly-replay` to that machine without
 * touching the database, and runs no job even with SCHEDULER=on. The same
 * server without the file (the primary) writes and runs its jobs.
 */
const dataDir = path.join(process.env.STORAGE_DIR!, "..", "replica");
const litefsDir = path.join(dataDir, "litefs");
const databasePath = path.join(dataDir, "app.db");
let server: Server | null = null;

afterEach(async () => {
  if (server) await stopServer(server);
  server = null;
});

function seed() {
  fs.mkdirSync(litefsDir, { recursive: true });
  const db = openDatabase(databasePath);
  try {
    const sender = createUser(db, { email: "sender@example.com" });
    return createFolder(db, sender.id, {
      name: "Family",
      recipients: [{ name: "Mum", email: "mum@example.com" }],
    });
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

async function start() {
  const port = await freePort();
  server = startServer(port, dataDir, {
    SESSION_SECRET: process.env.SESSION_SECRET!,
    LITEFS_DIR: litefsDir,
    SCHEDULER: "on",
  });
  const base = `http://127.0.0.1:${port}`;
  await waitForHealth(base, server);
  // The jobs start with the server; the analytics snapshot is taken at once.
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  return base;
}

describe("LiteFS primary and replica", () => {
  test("a replica reads, replays every write to the primary and runs no job; the primary does both", async () => {
    requireBuild();
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
    let base = await start();

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
    await stopServer(server!);
    server = null;

    // Promoted: LiteFS removes the file on the machine that holds the lease.
    fs.rmSync(path.join(litefsDir, ".primary"));
    base = await start();
    const written = await oneClick(base);
    expect(written.status).toBe(200);
    expect(written.headers.get("fly-replay")).toBeNull();
    expect(count("folder_recipient_states")).toBe(1);
    expect(count("analytics_snapshots")).toBe(1);
  }, 60_000);
});
