import type { Page, TestInfo } from "@playwright/test";
import { expect, test } from "./fixtures";
import { createFolderRow, createUser, signIn } from "./support/accounts";
import { createItemRow } from "./support/items";

const VIEWPORTS = [
  { name: "phone", width: 375, height: 812 },
  { name: "desktop", width: 1280, height: 800 },
] as const;

/** A URL with no place to break: what pushes a careless layout sideways on a phone. */
const LONG_URL =
  "https://example.com/a/very/long/path/that/could/push/the/page/sideways/on/a/phone";

/**
 * Nothing scrolls sideways and every control is on the screen. The full-page
 * screenshot is kept (test-results/, and attached to the report) for a person
 * to look at.
 */
async function expectFitsScreen(page: Page, testInfo: TestInfo, name: string) {
  const overflow = await page.evaluate(
    () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
  );
  expect(overflow, "pixels of sideways scrolling").toBeLessThanOrEqual(0);
  const width = page.viewportSize()!.width;
  // Buttons whole; links by their start, as a long URL is cut short with an ellipsis by design.
  for (const button of await page.locator("main button:visible").all()) {
    const box = (await button.boundingBox())!;
    const label = await button.innerText();
    expect(box.x, label).toBeGreaterThanOrEqual(0);
    expect(box.x + box.width, label).toBeLessThanOrEqual(width);
  }
  for (const link of await page.locator("main a:visible").all()) {
    const box = (await link.boundingBox())!;
    expect(box.x, await link.innerText()).toBeGreaterThanOrEqual(0);
    expect(box.x, await link.innerText()).toBeLessThan(width);
  }
  const screenshot = testInfo.outputPath(name);
  await page.screenshot({ path: screenshot, fullPage: true });
  await testInfo.attach(name, { path: screenshot, contentType: "image/png" });
}

test.describe("layout", () => {
  for (const viewport of VIEWPORTS) {
    test(`the dashboard and the folder form fit a ${viewport.width} px ${viewport.name} screen`, async ({
      page,
      context,
      baseURL,
    }, testInfo) => {
      const user = await createUser();
      const folder = createFolderRow(user.id, {
        name: "Family news",
        recipients: [
          { name: "Mum", email: "mum@example.com" },
          { name: "Dad", email: "dad@example.com" },
        ],
        sortOrder: 0,
      });
      createFolderRow(user.id, {
        name: "Book club with a long name",
        sortOrder: 1,
        isPaused: true,
      });
      createItemRow(folder.id, {
        type: "link",
        title: "An article worth reading about gardens and very long words",
        urls: [LONG_URL],
        note: null,
        addComment: true,
        commentText: "Made me think of you.",
      });
      createItemRow(folder.id, { title: "Tomatoes", note: "They are finally turning red." });
      await signIn(context, user.id, baseURL!);
      await page.setViewportSize({ width: viewport.width, height: viewport.height });

      await page.goto(`/folders/${folder.id}`);
      await expect(page.getByRole("heading", { level: 1, name: "My Folders" })).toBeVisible();
      await expect(page.getByRole("heading", { level: 2, name: "Family news" })).toBeVisible();
      await expect(page.getByRole("link", { name: LONG_URL })).toBeVisible();
      await expectFitsScreen(page, testInfo, `dashboard-${viewport.name}.png`);

      await page.goto("/folders/new");
      await expect(page.getByLabel("Folder Name")).toBeVisible();
      await expectFitsScreen(page, testInfo, `folder-form-${viewport.name}.png`);
    });
  }
});
