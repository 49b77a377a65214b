import type { Page } from "@playwright/test";

/**
 * Waits until React has hydrated the page and has nothing left to do: the page's footer (or, on a
 * page without one, its main) carries React's props, and the browser has had two idle moments
 * since. "networkidle" alone is not enough on a busy machine: the scripts have arrived but not yet
 * run, and anything the test does to the page before hydration is undone by it. Without JavaScript, returns at once.
 */
export async function hydrated(page: Page, javaScriptEnabled: boolean) {
  if (!javaScriptEnabled) return;
  await page.waitForFunction(() => {
    const last = document.querySelector("footer") ?? document.querySelector("main");
    return !!last && Object.keys(last).some((key) => key.startsWith("__reactProps$"));
  });
  await page.evaluate(
    () =>
      new Promise<void>((resolve) =>
        requestIdleCallback(() => requestIdleCallback(() => resolve())),
      ),
  );
}
