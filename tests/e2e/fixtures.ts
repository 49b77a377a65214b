import crypto from "node:crypto";
import AxeBuilder from "@axe-core/playwright";
import { type Browser, test as base, expect, type Page } from "@playwright/test";

async function blockingViolations(page: Page) {
  const results = await new AxeBuilder({ page }).analyze();
  return results.violations
    .filter((violation) => violation.impact === "serious" || violation.impact === "critical")
    .map((violation) => `${violation.id}: ${violation.help} (${violation.nodes.length})`);
}

/**
 * axe runs as a script inside the page, which a context with JavaScript
 * disabled cannot do. For those pages we check the very same HTML in a helper
 * page that has scripts enabled but the app's bundles blocked, so what axe
 * sees is the page as a no-JavaScript visitor gets it.
 */
async function blockingViolationsWithoutJavaScript(page: Page, browser: Browser, baseURL: string) {
  const html = await page.content();
  const context = await browser.newContext({ javaScriptEnabled: true });
  try {
    await context.route("**/*.js", (route) => route.abort());
    const helper = await context.newPage();
    await helper.goto(`${baseURL}/healthz`);
    await helper.setContent(html, { waitUntil: "load" });
    return await blockingViolations(helper);
  } finally {
    await context.close();
  }
}

/**
 * Each test is its own client, as people are in production: the test server
 * trusts X-Forwarded-For from loopback (TRUSTED_PROXY in playwright.config.ts),
 * and each test sends a loopback address of its own, so per-client limits
 * (app/utils/mail-limits.server.ts) count one test's requests, not the whole
 * run's. Still loopback, so /dev/outbox stays open to the tests.
 */
function clientAddressOf(testId: string, project: string) {
  const hash = crypto.createHash("sha256").update(`${project}:${testId}`).digest();
  return `127.${hash[0]}.${hash[1]}.${Math.max(1, hash[2] ?? 1)}`;
}

export const test = base.extend<{ expectAccessible: () => Promise<void> }>({
  extraHTTPHeaders: async ({ extraHTTPHeaders }, use, testInfo) => {
    await use({
      ...extraHTTPHeaders,
      "X-Forwarded-For": clientAddressOf(testInfo.testId, testInfo.project.name),
    });
  },
  expectAccessible: async ({ page, browser, baseURL, javaScriptEnabled }, use) => {
    await use(async () => {
      const violations = javaScriptEnabled
        ? await blockingViolations(page)
        : await blockingViolationsWithoutJavaScript(page, browser, baseURL ?? "");
      expect(violations, "serious or critical accessibility violations").toEqual([]);
    });
  },
});

export { expect };
