import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { defineConfig, devices } from "@playwright/test";
import { startFakeOAuthProvider } from "./tests/e2e/support/fake-oauth-provider";
import { startFakeStripe } from "./tests/e2e/support/fake-stripe";
import { startMailCatcher } from "./tests/e2e/support/mail-catcher";
import { serverEnv } from "./tests/e2e/support/server-env";
import { freePort } from "./tests/support/free-port";
import { startPreviewPages } from "./tests/support/preview-pages";

/**
 * Browser tests run against the production build served by server/index.ts on a
 * free port, with a temporary data directory, in Debian's Chromium. The port
 * and directory are chosen once in the main process and handed to the workers
 * through the environment they inherit.
 */
process.env.E2E_PORT ??= String(await freePort());
process.env.E2E_DATA_DIR ??= fs.mkdtempSync(path.join(os.tmpdir(), "thoughtfully-e2e-"));
process.env.E2E_SESSION_SECRET ??= "e2e-session-secret-with-more-than-32-characters";
const port = Number(process.env.E2E_PORT);
const dataDir = process.env.E2E_DATA_DIR;
process.env.E2E_MAIL_DIR ??= path.join(dataDir, "mail");
// The workers inherit E2E_SMTP_PORT, so only the main process starts the catcher.
process.env.E2E_SMTP_PORT ??= String(await startMailCatcher(process.env.E2E_MAIL_DIR));
const oauthClient = { id: "thoughtfully-e2e", secret: "e2e-client-secret" };
process.env.E2E_OAUTH_ORIGIN ??= (
  await startFakeOAuthProvider(oauthClient.id, oauthClient.secret)
).origin;
const oauthOrigin = process.env.E2E_OAUTH_ORIGIN;
// Billing talks to a fake Stripe API on loopback; tests sign webhooks with E2E_STRIPE_WEBHOOK_SECRET.
const stripeKeys = { secret: "sk_test_thoughtfully_e2e", price: "price_e2e_premium" };
process.env.E2E_STRIPE_WEBHOOK_SECRET ??= "whsec_thoughtfully_e2e";
process.env.E2E_STRIPE_ORIGIN ??= (await startFakeStripe(stripeKeys.secret)).origin;
// Pages for link previews, on loopback: the server may fetch them (LINK_PREVIEW_ALLOW_LOOPBACK).
process.env.E2E_PREVIEW_ORIGIN ??= (await startPreviewPages()).origin;
export const baseURL = `http://localhost:${port}`;

// Debian's build of Chromium's headless shell, as Playwright itself runs headless tests: the same
// Blink, without the full browser's window machinery, at about half the CPU per test
// (docs/decisions/0234-browser-tests-in-the-headless-shell.md). The extension's tests need the
// full browser (tests/e2e/support/extension.ts).
const chromium = {
  ...devices["Desktop Chrome"],
  launchOptions: {
    executablePath: process.env.CHROMIUM_HEADLESS_SHELL_PATH ?? "/usr/bin/chromium-headless-shell",
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  },
};

export default defineConfig({
  testDir: "./tests/e2e",
  fullyParallel: true,
  forbidOnly: Boolean(process.env.CI),
  retries: 0,
  workers: 2,
  reporter: [["list"]],
  // The no-JavaScript flows with an accessibility scan take about 10 s on a quiet 2-core
  // machine and passed 30 s when the machine was shared with other work (load 14).
  timeout: 60_000,
  // Screenshots compared pixel by pixel (tests/e2e/look/): one PNG per screen and width, named
  // by the test itself; neither the platform nor the project is in the name.
  expect: {
    toHaveScreenshot: {
      pathTemplate: "{testDir}/{testFileDir}/{testFileName}-snapshots/{arg}{ext}",
    },
  },
  use: {
    baseURL,
    // A trace costs about a quarter of a test's time, and CI's traces stay on its machine: only
    // its printed output comes back (decision 0234). Locally a failure keeps its trace.
    trace: process.env.CI ? "off" : "retain-on-failure",
  },
  projects: [
    { name: "js", use: { ...chromium, javaScriptEnabled: true } },
    { name: "no-js", use: { ...chromium, javaScriptEnabled: false } },
  ],
  webServer: {
    command: "node build/server/index.js build/index.js",
    url: `${baseURL}/healthz`,
    reuseExistingServer: false,
    timeout: 60_000,
    stdout: "ignore",
    stderr: "pipe",
    env: {
      ...serverEnv(),
      PORT: String(port),
      LINK_PREVIEW_ALLOW_LOOPBACK: "true",
      // Folders show their own address for saving by e-mail (tests/e2e/capture/save-by-email.spec.ts).
      INBOUND_EMAIL_DOMAIN: "in.thoughtfully.test",
      OAUTH_PROVIDER_NAME: "Example ID",
      OAUTH_CLIENT_ID: oauthClient.id,
      OAUTH_CLIENT_SECRET: oauthClient.secret,
      OAUTH_AUTHORIZATION_URL: `${oauthOrigin}/authorize`,
      OAUTH_TOKEN_URL: `${oauthOrigin}/token`,
      OAUTH_USERINFO_URL: `${oauthOrigin}/userinfo`,
      STRIPE_SECRET_KEY: stripeKeys.secret,
      STRIPE_PRICE_ID: stripeKeys.price,
      STRIPE_WEBHOOK_SECRET: process.env.E2E_STRIPE_WEBHOOK_SECRET,
      STRIPE_API_BASE: process.env.E2E_STRIPE_ORIGIN,
    },
  },
});
