import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll } from "vitest";

/**
 * Each test file runs against its own data directory: a fresh SQLite file
 * (migrated on first use by app/platform/db.server.ts), uploads and outbox. Set
 * before any module of ours reads the environment.
 */
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "thoughtfully-test-"));
process.env.DATABASE_PATH = path.join(dataDir, "app.db");
process.env.STORAGE_DIR = path.join(dataDir, "uploads");
process.env.OUTBOX_DIR = path.join(dataDir, "outbox");
process.env.SCHEDULER = "off";
process.env.LINK_PREVIEWS = "off";
process.env.NODE_ENV = "test";
process.env.APP_URL = "http://localhost:3000";
process.env.SESSION_SECRET = "test-session-secret-that-is-long-enough-000";
delete process.env.SMTP_URL;

afterAll(() => {
  fs.rmSync(dataDir, { recursive: true, force: true });
});
