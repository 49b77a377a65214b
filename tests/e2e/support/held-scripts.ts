import type { Page } from "@playwright/test";

/**
 * Holds the page's scripts until `release()`: the page shows, and can be typed into, as on a slow
 * phone before its JavaScript has arrived.
 */
export async function holdScripts(page: Page) {
  let release = () => {};
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  await page.route("**/build/**/*.js", async (route) => {
    await held;
    await route.continue();
  });
  return { release };
}
