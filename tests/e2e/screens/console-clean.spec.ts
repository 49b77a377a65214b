import type { Page } from "@playwright/test";
import { createSentIssue } from "#db/sent-issue-factories";
import { expect, test } from "../fixtures";
import { createFolderRow, testDb, uniqueEmail } from "../support/accounts";
import { hydrated } from "../support/hydrated";
import { answerPath, welcomePath } from "../support/recipient-links";

/**
 * The pages whose scripts load the app's schemas hydrate without a complaint: no error on the
 * console, and nothing refused by our Content Security Policy. zod 4 probed for `new Function`
 * when a schema was built; the policy refused it and Chromium listed the refusal among the
 * page's issues, which Lighthouse's best practices count, though zod caught it
 * (docs/decisions/0250-zod-without-its-jit-and-shares-land-on-their-item.md). A refusal is an
 * event on the page, not always a console message: the test listens for it. Without JavaScript
 * the pages run no script and the same visits have nothing to report.
 */
test.use({ viewport: { width: 375, height: 740 } });

async function consoleErrors(page: Page) {
  const errors: string[] = [];
  page.on("pageerror", (error) => errors.push(error.message));
  page.on("console", (message) => {
    if (message.type() === "error") errors.push(message.text());
  });
  // Playwright's own script, which the policy does not govern, reports each refusal.
  await page.addInitScript(() => {
    document.addEventListener("securitypolicyviolation", (event) => {
      console.error(`Refused by ${event.effectiveDirective}: ${event.blockedURI}`);
    });
  });
  return errors;
}

test("the folder, answer and welcome pages hydrate without an error or a refusal", async ({
  page,
  login,
  javaScriptEnabled,
}) => {
  const user = await login();
  const mum = uniqueEmail("mum");
  const folder = createFolderRow(user.id, {
    name: "Family news",
    recipients: [{ name: "Mum", email: mum }],
  });
  const { items, copies } = createSentIssue(testDb(), folder.id, {
    titles: ["The tide came in"],
    emails: [mum],
  });
  const errors = await consoleErrors(page);
  const pages = [
    ["folder", `/folders/${folder.id}`],
    ["answer", answerPath(copies[0]!.id, items[0]!.id)],
    ["welcome", welcomePath(folder.id, mum)],
  ] as const;
  const found: Record<string, string[]> = {};
  for (const [screen, path] of pages) {
    const response = await page.goto(path);
    expect(response?.status(), screen).toBe(200);
    await hydrated(page, javaScriptEnabled);
    found[screen] = errors.splice(0);
  }
  expect(found).toEqual({ folder: [], answer: [], welcome: [] });
});
