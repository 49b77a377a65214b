import path from "node:path";

/**
 * What the e2e server runs on (its port, data directory, secret and mail
 * catcher, chosen in playwright.config.ts and handed to the workers through
 * E2E_* variables), for the server itself and for app code a test runs in a
 * process of its own against the same database and mail (support/app-script.ts).
 */
export function serverEnv() {
  const dataDir = process.env.E2E_DATA_DIR!;
  return {
    // The production build, but not NODE_ENV=production: that refuses the loopback
    // switch of link previews (docs/decisions/0103-loopback-previews-never-in-production.md).
    NODE_ENV: "test" as const,
    APP_URL: `http://localhost:${process.env.E2E_PORT}`,
    DATABASE_PATH: path.join(dataDir, "app.db"),
    STORAGE_DIR: path.join(dataDir, "uploads"),
    OUTBOX_DIR: path.join(dataDir, "outbox"),
    SCHEDULER: "off",
    SESSION_SECRET: process.env.E2E_SESSION_SECRET!,
    SMTP_URL: `smtp://127.0.0.1:${process.env.E2E_SMTP_PORT}`,
    MAIL_FROM: "Thoughtfully <hello@thoughtfully.test>",
  };
}
