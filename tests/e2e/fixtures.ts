import AxeBuilder from "@axe-core/playwright";
import { type Browser, test as base, expect, type Page } from "@playwright/test";
import { createUser, type SignInMethod, signIn, testDb } from "./support/accounts";

/** Rules axe leaves out by default (its experimental ones) that a page's scan asks for too. */
type Scan = { alsoRules?: string[] };

async function blockingViolations(page: Page, { alsoRules = [] }: Scan = {}) {
  const rules = Object.fromEntries(alsoRules.map((rule) => [rule, { enabled: true }]));
  const results = await new AxeBuilder({ page }).options({ rules }).analyze();
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
async function blockingViolationsWithoutJavaScript(
  page: Page,
  browser: Browser,
  baseURL: string,
  scan: Scan,
) {
  const html = await page.content();
  const context = await browser.newContext({ javaScriptEnabled: true });
  try {
    await context.route("**/*.js", (route) => route.abort());
    const helper = await context.newPage();
    await helper.goto(`${baseURL}/healthz`);
    await helper.setContent(html, { waitUntil: "load" });
    return await blockingViolations(helper, scan);
  } finally {
    await context.close();
  }
}

type Login = (
  overrides?: Parameters<typeof createUser>[0],
  options?: { method?: SignInMethod },
) => ReturnType<typeof createUser>;

export const test = base.extend<{ expectAccessible: (scan?: Scan) => Promise<void>; login: Login }>(
  {
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
    /**
     * No serious or critical axe violation on the page as it is; `alsoRules` adds rules axe
     * leaves out by default, as Lighthouse adds "label-content-name-mismatch" (WCAG 2.5.3).
     */
    expectAccessible: async ({ page, browser, baseURL, javaScriptEnabled }, use) => {
      await use(async (scan = {}) => {
        const violations = javaScriptEnabled
          ? await blockingViolations(page, scan)
          : await blockingViolationsWithoutJavaScript(page, browser, baseURL ?? "", scan);
        expect(violations, "serious or critical accessibility violations").toEqual([]);
      });
    },
  },
);

export { expect };
