import AxeBuilder from "@axe-core/playwright";
import { type Browser, test as base, expect, type Page } from "@playwright/test";
import { createUser, type SignInMethod, signIn, testDb } from "./support/accounts";

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

type Login = (
  overrides?: Parameters<typeof createUser>[0],
  options?: { method?: SignInMethod },
) => ReturnType<typeof createUser>;

export const test = base.extend<{ expectAccessible: () => Promise<void>; login: Login }>({
  /**
   * A new verified sender, signed in to this test's browser by a session
   * made directly (not the log-in form, which has tests of its own): a
   * password session unless `method` asks for another ("totp" for a
   * second-factor session).
   */
  login: async ({ context, baseURL }, use) => {
    await use(async (overrides, options) => {
      const user = await createUser(overrides);
      await signIn(context, user.id, baseURL!, testDb(), options);
      return user;
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
