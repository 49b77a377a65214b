import type { Page, TestInfo } from "@playwright/test";
import { securityEvents, userRoles } from "#db/schema";
import { expect, test } from "../fixtures";
import { createFolderRow, createUser, enableTwoFactor, signIn, testDb } from "../support/accounts";
import { createItemRow } from "../support/items";

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

/**
 * Every control under `root` on the screen, sideways whole and, for a menu,
 * also up and down; and big enough for a thumb: 44×44 px, or WCAG 2.2's
 * 24×24 px with 8 px clear of every other control. Inline links in running
 * text are exempt, as WCAG exempts them. Returns one line per problem.
 */
async function targetProblems(page: Page, root: string, { wholeOnScreen = false } = {}) {
  return page.evaluate(
    ({ root, wholeOnScreen }) => {
      const selector =
        'a[href], button, summary, input:not([type="hidden"]), select, textarea, [role="button"]';
      const scope = document.querySelector(root);
      if (!scope) return [`${root} is not on the page`];
      const elements = [
        ...(scope.matches(selector) ? [scope] : []),
        ...scope.querySelectorAll(selector),
      ].filter((element) => {
        if (!element.checkVisibility({ visibilityProperty: true })) return false;
        // Out of sight, of the tab order and of screen readers: Enter's button (DefaultSubmit).
        if (element.hasAttribute("data-default-submit")) return false;
        // A link inside a sentence is exempt (WCAG 2.5.8 "inline").
        return !(element instanceof HTMLAnchorElement && element.closest("p"));
      });
      // A checkbox or radio is as big as the label that wraps it.
      const boxes = elements.map((element) => {
        const label = element.closest("label");
        const target =
          element instanceof HTMLInputElement && /^(checkbox|radio)$/.test(element.type) && label
            ? label
            : element;
        return target.getBoundingClientRect();
      });
      const width = document.documentElement.clientWidth;
      const height = window.innerHeight;
      const problems: string[] = [];
      elements.forEach((element, index) => {
        const box = boxes[index]!;
        const name = `${element.tagName.toLowerCase()} "${(element.getAttribute("aria-label") ?? element.textContent ?? (element as HTMLInputElement).name ?? "").trim().slice(0, 40)}"`;
        const size = `${Math.round(box.width)}×${Math.round(box.height)}`;
        if (box.left < -0.5 || box.right > width + 0.5) {
          problems.push(
            `${name} is off the screen sideways (${Math.round(box.left)}..${Math.round(box.right)} of ${width})`,
          );
        }
        if (wholeOnScreen && (box.top < -0.5 || box.bottom > height + 0.5)) {
          problems.push(
            `${name} is off the screen (${Math.round(box.top)}..${Math.round(box.bottom)} of ${height})`,
          );
        }
        if (box.width >= 44 && box.height >= 44) return;
        if (box.width < 24 || box.height < 24) {
          problems.push(`${name} is ${size}, under 24×24`);
          return;
        }
        const crowded = boxes.some(
          (other, otherIndex) =>
            otherIndex !== index &&
            !elements[otherIndex]!.contains(element) &&
            !element.contains(elements[otherIndex]!) &&
            other.left < box.right + 8 &&
            other.right > box.left - 8 &&
            other.top < box.bottom + 8 &&
            other.bottom > box.top - 8,
        );
        if (crowded) problems.push(`${name} is ${size} with another control within 8 px`);
      });
      return problems;
    },
    { root, wholeOnScreen },
  );
}

const PHONE_WIDTHS = [320, 375, 414] as const;

test.describe("thumb targets", () => {
  for (const width of PHONE_WIDTHS) {
    test(`every menu and dialog fits a ${width} px phone, with targets a thumb can hit`, async ({
      page,
      context,
      baseURL,
    }, testInfo) => {
      const user = await createUser();
      const { folder, link } = seedLongContent(user.id);
      await signIn(context, user.id, baseURL!);
      await page.setViewportSize({ width, height: 740 });
      const problems: string[] = [];
      const check = async (where: string, root: string, options?: { wholeOnScreen: boolean }) => {
        for (const problem of await targetProblems(page, root, options)) {
          problems.push(`${where}: ${problem}`);
        }
      };

      await page.goto(`/folders/${folder.id}`);
      await check("header", "header");
      await page.locator("header summary").click();
      await expect(page.getByRole("link", { name: "Profile Settings" })).toBeVisible();
      await check("account menu", 'nav[aria-label="Account"]', { wholeOnScreen: true });
      if (width === 375) {
        await page.screenshot({ path: testInfo.outputPath("account-menu-phone.png") });
      }
      await page.goto(`/folders/${folder.id}`);
      await check("item controls", `#item-${link.id} > div:last-child`);
      await page.getByLabel(`Actions for ${folder.name}`).click();
      await check(
        "folder menu",
        `details[open]:has(> summary[aria-label="Actions for ${folder.name}"])`,
      );

      const dialogs = [
        "add/link",
        "add/musing",
        "add/photo",
        "add/file",
        `items/${link.id}/edit`,
        "preview",
        "recipients",
        "edit",
        "delete",
        "confirm-send",
      ];
      for (const dialog of dialogs) {
        await page.goto(`/folders/${folder.id}/${dialog}`);
        await expect(page.getByRole("dialog")).toBeVisible();
        await check(dialog, '[role="dialog"]');
        if (width === 375 && (dialog === "add/link" || dialog === "preview")) {
          const name = `${dialog.replace("/", "-")}-phone.png`;
          await page.screenshot({ path: testInfo.outputPath(name) });
          await testInfo.attach(name, {
            path: testInfo.outputPath(name),
            contentType: "image/png",
          });
        }
      }
      expect(problems).toEqual([]);
    });
  }
});

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
    // Visits and checks every page of the product: about 25 s on an idle machine.
    test.slow();
    const admin = await createUser();
    testDb()
      .insert(userRoles)
      .values({ userId: admin.id, role: "admin", grantReason: "e2e" })
      .run();
    await enableTwoFactor(admin.id);
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
