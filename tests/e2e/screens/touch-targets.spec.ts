import type { Page } from "@playwright/test";
import { createAnswer, createSentIssue } from "#db/sent-issue-factories";
import { expect, test } from "../fixtures";
import { createFolderRow, createUser, testDb, uniqueEmail } from "../support/accounts";
import { createItemRow } from "../support/items";
import {
  answerPath,
  archivePath,
  dontAskAgainPath,
  resubscribePath,
  unsubscribePath,
  webVersionPath,
  welcomePath,
} from "../support/recipient-links";

/**
 * Every control on the main screens of a 375 px phone is on the screen, at
 * least 44×44 px, and at least 8 px from its neighbours; a menu's entries, rows
 * across it, may touch (docs/decisions/0144-every-control-thumb-sized.md).
 * Exempt, as WCAG 2.5.8 exempts them: a link inside a sentence, an `a` in a
 * `p` with words of the same sentence beside it ("Don't have an account? Sign
 * up"). A link alone in its paragraph, or after a full stop with nothing after
 * it, is a sentence of its own and is measured. A control hidden until focused
 * (the skip link) is measured focused.
 */
test.use({ viewport: { width: 375, height: 740 } });

/**
 * The controls under `root` (the page, or a dialog or open menu, which covers
 * the page behind it by design): each one's size, and any two that overlap.
 */
async function targetProblems(page: Page, screen: string, root = "body") {
  const problems = await page.evaluate((root) => {
    const MIN_ROOM = 8;
    // A menu's entries are rows across it, as on the phone's own menus: their height is the room.
    const isMenu = root === "details[open]";
    const selector =
      'a[href], button, summary, input:not([type="hidden"]), select, textarea, [role="button"]';
    const scope = document.querySelector(root);
    if (!scope) return [`${root} is not on the page`];
    const candidates = [
      ...(scope.matches(selector) ? [scope as HTMLElement] : []),
      ...scope.querySelectorAll<HTMLElement>(selector),
    ];
    const elements = candidates.filter((element) => {
      if (!element.checkVisibility({ visibilityProperty: true })) return false;
      // Out of sight, of the tab order and of screen readers: Enter's button (DefaultSubmit).
      if (element.hasAttribute("data-default-submit")) return false;
      const paragraph = element instanceof HTMLAnchorElement ? element.closest("p") : null;
      if (!paragraph) return true;
      // The paragraph's words before and after the link.
      const around = document.createRange();
      around.selectNodeContents(paragraph);
      around.setEndBefore(element);
      const before = around.toString().trim();
      around.selectNodeContents(paragraph);
      around.setStartAfter(element);
      const after = around.toString().trim();
      const sentenceOfItsOwn = (before === "" || before.endsWith(".")) && !/\w/.test(after);
      return sentenceOfItsOwn;
    });
    function box(element: HTMLElement) {
      // A checkbox, radio or file input is as big as the label that wraps it.
      const label = element.closest("label");
      if (element instanceof HTMLInputElement && label && element.type !== "text") {
        if (/^(checkbox|radio|file)$/.test(element.type)) return label.getBoundingClientRect();
      }
      let rect = element.getBoundingClientRect();
      if (rect.width <= 1 || rect.height <= 1) {
        element.focus();
        rect = element.getBoundingClientRect();
        element.blur();
      }
      return rect;
    }
    const boxes = elements.map(box);
    // Shown only while focused, over the page by design: its size counts, not what it covers.
    const onlyWhenFocused = elements.map((element) => element.classList.contains("sr-only"));
    function name(element: HTMLElement) {
      const label =
        element.getAttribute("aria-label") ??
        ((element as HTMLInputElement).labels?.[0]?.textContent || element.textContent) ??
        "";
      return `${element.tagName.toLowerCase()} "${label.trim().slice(0, 40)}"`;
    }
    const found: string[] = [];
    elements.forEach((element, index) => {
      const rect = boxes[index]!;
      if (rect.left < -0.5 || rect.right > document.documentElement.clientWidth + 0.5) {
        found.push(`${name(element)} is off the screen sideways`);
      }
      if (rect.width < 44 || rect.height < 44) {
        found.push(`${name(element)} is ${Math.round(rect.width)}×${Math.round(rect.height)}`);
      }
      for (let other = index + 1; other < elements.length; other++) {
        const otherElement = elements[other]!;
        if (onlyWhenFocused[index] || onlyWhenFocused[other]) continue;
        if (element.contains(otherElement) || otherElement.contains(element)) continue;
        const otherRect = boxes[other]!;
        const overlapX =
          Math.min(rect.right, otherRect.right) - Math.max(rect.left, otherRect.left);
        const overlapY =
          Math.min(rect.bottom, otherRect.bottom) - Math.max(rect.top, otherRect.top);
        if (overlapX > 0.5 && overlapY > 0.5) {
          found.push(`${name(element)} overlaps ${name(otherElement)}`);
        } else if (overlapY > 0.5 && overlapX > -MIN_ROOM) {
          found.push(
            `${name(element)} is ${Math.round(-overlapX)} px beside ${name(otherElement)}`,
          );
        } else if (overlapX > 0.5 && overlapY > -MIN_ROOM && !isMenu) {
          found.push(`${name(element)} is ${Math.round(-overlapY)} px above ${name(otherElement)}`);
        }
      }
    });
    return found;
  }, root);
  return problems.map((problem) => `${screen}: ${problem}`);
}

/** A sender with two folders, a link and a musing to show, and one issue sent, which Dad answered. */
function seedFolders(userId: number) {
  const recipients = [
    { name: "Mum", email: uniqueEmail("mum") },
    { name: "Dad", email: uniqueEmail("dad") },
  ];
  const folder = createFolderRow(userId, { name: "Family news", recipients, sortOrder: 0 });
  createFolderRow(userId, { name: "Book club", sortOrder: 1 });
  createItemRow(folder.id, {
    type: "link",
    title: "Tide tables for the bay",
    urls: ["https://example.com/tides"],
    addComment: true,
    commentText: "For the walk on Sunday.",
    sortOrder: 0,
  });
  createItemRow(folder.id, { title: "Tomatoes", note: "The first ripe ones.", sortOrder: 1 });
  const { ledger, items, copies } = createSentIssue(testDb(), folder.id, {
    titles: ["Hello"],
    emails: recipients.map(({ email }) => email),
  });
  createAnswer(testDb(), {
    userId,
    folderId: folder.id,
    copy: copies[1]!,
    itemId: items[0]!.id,
    body: "Lovely to hear from you.",
  });
  return { folder, issue: ledger };
}

test("every control on the main screens is at least 44×44 px, apart from its neighbours", async ({
  page,
  login,
}) => {
  test.slow();
  const user = await login();
  const { folder, issue } = seedFolders(user.id);
  const problems: string[] = [];

  await page.goto("/");
  problems.push(...(await targetProblems(page, "dashboard")));
  await page.getByLabel("Actions for Family news").click();
  problems.push(...(await targetProblems(page, "folder card menu", "details[open]")));
  await page.goto("/");
  await page.getByRole("banner").locator("summary").click();
  problems.push(...(await targetProblems(page, "account menu", "details[open]")));

  await page.goto(`/folders/${folder.id}`);
  problems.push(...(await targetProblems(page, "folder")));
  await page
    .getByRole("main")
    .locator("summary", { hasText: /^More$/ })
    .click();
  await expect(page.getByRole("link", { name: "Recipients", exact: true })).toBeVisible();
  problems.push(...(await targetProblems(page, "More menu", "details[open]")));

  const dialogs = [
    ["add link", `/folders/${folder.id}/add/link`],
    ["add photo", `/folders/${folder.id}/add/photo`],
    ["add musing", `/folders/${folder.id}/add/musing`],
    ["add file", `/folders/${folder.id}/add/file`],
    ["email preview", `/folders/${folder.id}/preview`],
    ["upload to several folders", "/upload"],
    ["recipients", `/folders/${folder.id}/recipients`],
    ["folder settings", `/folders/${folder.id}/edit`],
    ["sent list", `/folders/${folder.id}/sent`],
    ["sent issue, with Dad's note", `/folders/${folder.id}/sent/${issue.id}`],
  ] as const;
  for (const [screen, path] of dialogs) {
    await page.goto(path);
    await expect(page.getByRole("dialog")).toBeVisible();
    problems.push(...(await targetProblems(page, screen, '[role="dialog"]')));
  }
  await page.goto("/profile");
  problems.push(...(await targetProblems(page, "profile")));
  await page.goto("/save");
  problems.push(...(await targetProblems(page, "save")));
  expect(problems).toEqual([]);
});

test("every control on the log-in and sign-up screens is at least 44×44 px", async ({ page }) => {
  const problems: string[] = [];
  for (const [screen, path] of [
    ["log in", "/login"],
    ["sign up", "/signup"],
  ] as const) {
    await page.goto(path);
    problems.push(...(await targetProblems(page, screen)));
  }
  expect(problems).toEqual([]);
});

/**
 * A sign-up control on a page that exists for something else is a quiet link:
 * no fill, no border, so the page's own button is always the loudest.
 */
async function loudSignUp(page: Page, screen: string) {
  const loud = await page.evaluate(() =>
    [...document.querySelectorAll<HTMLElement>('a[href^="/signup"]')]
      .filter((link) => link.checkVisibility())
      .filter((link) => {
        const style = getComputedStyle(link);
        return style.backgroundColor !== "rgba(0, 0, 0, 0)" || style.borderTopWidth !== "0px";
      })
      .map((link) => link.textContent?.trim()),
  );
  return loud.map((name) => `${screen}: "${name}" is a button, as loud as the page's own`);
}

/**
 * The pages a recipient opens from an e-mail, with no account (issue 47):
 * one line per page or state, so a new page is one more line.
 */
test("every control on every recipient page is at least 44×44 px, apart from its neighbours", async ({
  page,
}) => {
  test.slow();
  const sender = await createUser({ firstName: "Ada" });
  const mum = uniqueEmail("mum");
  const dad = uniqueEmail("dad");
  const folder = createFolderRow(sender.id, {
    name: "Family news",
    recipients: [
      { name: "Mum", email: mum },
      { name: "Dad", email: dad },
    ],
  });
  const { ledger, items, copies } = createSentIssue(testDb(), folder.id, {
    titles: ["The tide came in"],
    emails: [mum, dad],
  });
  const mumsCopy = copies.find((copy) => copy.email === mum)!;
  const pages = [
    ["unsubscribe", unsubscribePath(folder.id, mum)],
    ["re-subscribe", resubscribePath(folder.id, mum)],
    ["don't ask again", dontAskAgainPath(mum)],
    ["web version", webVersionPath(ledger.id, mum)],
    ["all issues", archivePath(folder.id, mum)],
    ["answer", answerPath(mumsCopy.id, items[0]!.id)],
    ["welcome", welcomePath(folder.id, mum)],
    ["welcome, Sounds lovely", welcomePath(folder.id, mum, "yes")],
    ["welcome, Not for me", welcomePath(folder.id, mum, "no")],
  ] as const;
  const problems: string[] = [];
  const measure = async (screen: string) => {
    problems.push(...(await targetProblems(page, screen)), ...(await loudSignUp(page, screen)));
  };
  for (const [screen, path] of pages) {
    const response = await page.goto(path);
    expect(response?.status(), screen).toBe(200);
    await measure(screen);
  }
  // After the choice: Dad said "Not for me"; the pages he reaches then.
  await page.goto(welcomePath(folder.id, dad, "no"));
  await page.getByRole("button", { name: "Not for me" }).click();
  await expect(page.getByRole("heading", { name: "You will not get Family news" })).toBeVisible();
  // Once more without the toast, which floats over the page by design.
  await page.reload();
  await measure("welcome, after Not for me");
  await page.goto(webVersionPath(ledger.id, dad));
  await measure("web version, after leaving");
  await page.goto(archivePath(folder.id, dad));
  await measure("all issues, after leaving");
  await page.goto(unsubscribePath(folder.id, dad));
  await page.getByRole("button", { name: "Unsubscribe" }).click();
  await expect(page.getByRole("status")).toBeVisible();
  await measure("unsubscribed");
  expect(problems).toEqual([]);
});
