import type { Page, TestInfo } from "@playwright/test";
import { securityEvents, userRoles } from "#db/schema";
import { expect, test } from "./fixtures";
import { createFolderRow, createUser, signIn, testDb } from "./support/accounts";
import { createItemRow } from "./support/items";

const VIEWPORTS = [
  { name: "phone", width: 375, height: 812 },
  { name: "desktop", width: 1280, height: 800 },
] as const;

/** A URL and a word with no place to break: what pushes a careless layout sideways on a phone. */
const LONG_URL =
  "https://example.com/a/very/long/path/that/could/push/the/page/sideways/on/a/phone";
const LONG_WORD = "Averyveryveryverylongwordwithoutanyspacesthatcouldoverflowthecard";

/** Two folders, one with a link and a musing that have nothing to break at. */
function seedLongContent(userId: number) {
  const folder = createFolderRow(userId, {
    name: "Family news",
    recipients: [
      { name: "Mum", email: "mum@example.com" },
      { name: "Dad", email: "dad@example.com" },
    ],
    sortOrder: 0,
  });
  createFolderRow(userId, { name: "Book club with a long name", sortOrder: 1, isPaused: true });
  const link = createItemRow(folder.id, {
    type: "link",
    title: "An article worth reading about gardens and very long words",
    urls: [LONG_URL],
    note: null,
    addComment: true,
    commentText: "Made me think of you.",
  });
  createItemRow(folder.id, { title: "Tomatoes", note: LONG_WORD });
  return { folder, link };
}

async function sidewaysScroll(page: Page) {
  return page.evaluate(
    () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
  );
}

/**
 * Nothing scrolls sideways and every control is on the screen. The full-page
 * screenshot is kept (test-results/, and attached to the report) for a person
 * to look at.
 */
async function expectFitsScreen(page: Page, testInfo: TestInfo, name: string) {
  expect(await sidewaysScroll(page), "pixels of sideways scrolling").toBeLessThanOrEqual(0);
  const width = page.viewportSize()!.width;
  // Buttons whole; links by their start, as a long URL is cut short with an ellipsis by design.
  for (const button of await page.locator("main button:visible").all()) {
    const box = (await button.boundingBox())!;
    const label = (await button.textContent()) ?? "";
    expect(box.x, label).toBeGreaterThanOrEqual(0);
    expect(box.x + box.width, label).toBeLessThanOrEqual(width);
  }
  for (const link of await page.locator("main a:visible").all()) {
    const box = (await link.boundingBox())!;
    const label = (await link.textContent()) ?? "";
    expect(box.x, label).toBeGreaterThanOrEqual(0);
    expect(box.x, label).toBeLessThan(width);
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
      const { folder } = seedLongContent(user.id);
      await signIn(context, user.id, baseURL!);
      await page.setViewportSize({ width: viewport.width, height: viewport.height });

      await page.goto(`/folders/${folder.id}`);
      await expect(page.getByRole("heading", { level: 1, name: "My Folders" })).toBeVisible();
      await expect(page.getByRole("heading", { level: 2, name: "Family news" })).toBeVisible();
      await expect(page.getByRole("link", { name: LONG_URL })).toBeVisible();
      await expect(page.getByText(LONG_WORD)).toBeVisible();
      await expectFitsScreen(page, testInfo, `dashboard-${viewport.name}.png`);

      await page.goto("/folders/new");
      await expect(page.getByLabel("Folder Name")).toBeVisible();
      await expectFitsScreen(page, testInfo, `folder-form-${viewport.name}.png`);
    });
  }

  test("no page scrolls sideways on a 375 px phone", async ({
    page,
    context,
    baseURL,
    expectAccessible,
  }) => {
    const admin = await createUser();
    testDb()
      .insert(userRoles)
      .values({ userId: admin.id, role: "admin", grantReason: "e2e" })
      .run();
    const { folder, link } = seedLongContent(admin.id);
    // The security dashboard's tables need rows, with an address as long as they come.
    testDb()
      .insert(securityEvents)
      .values({
        eventType: "failed_login",
        severity: "medium",
        userId: admin.id,
        ipAddress: "2001:0db8:85a3:0000:0000:8a2e:0370:7334",
      })
      .run();
    await signIn(context, admin.id, baseURL!);
    await page.setViewportSize({ width: 375, height: 812 });
    const signedIn = [
      "/",
      `/folders/${folder.id}/add/link`,
      `/folders/${folder.id}/add/musing`,
      `/folders/${folder.id}/add/photo`,
      `/folders/${folder.id}/items/${link.id}/edit`,
      `/folders/${folder.id}/preview`,
      `/folders/${folder.id}/recipients`,
      `/folders/${folder.id}/delete`,
      `/folders/${folder.id}/edit`,
      "/profile",
      "/upload",
      "/invite",
      "/upgrade",
      `/add?url=${encodeURIComponent(LONG_URL)}&title=${LONG_WORD}`,
      "/admin/dashboard",
      "/admin/dashboard?tab=health",
      "/admin/dashboard?tab=business",
      "/admin/dashboard?tab=usage",
      "/admin/dashboard?tab=security",
      "/admin/security",
    ];
    const signedOut = ["/", "/login", "/signup", "/forgot-password", "/unsubscribe?token=bad"];
    const problems: string[] = [];
    for (const [paths, label] of [
      [signedIn, "signed in"],
      [signedOut, "signed out"],
    ] as const) {
      if (label === "signed out") await context.clearCookies();
      for (const path of paths) {
        const response = await page.goto(path);
        const overflow = await sidewaysScroll(page);
        // The admin tables scroll inside their panels here: such a region must work by keyboard.
        if (path.startsWith("/admin/")) await expectAccessible();
        // A bad unsubscribe link is a 400 page, still one to fit.
        if (overflow > 0 || !response || response.status() >= 500) {
          problems.push(`${label} ${path}: ${response?.status()}, ${overflow} px sideways`);
        }
      }
    }
    expect(problems).toEqual([]);
  });
});
