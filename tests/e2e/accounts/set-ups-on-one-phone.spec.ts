import fs from "node:fs/promises";
import type { Locator, Page } from "@playwright/test";
import { expect, test } from "../fixtures";
import {
  addRecoveryCodes,
  confirmWithPassword,
  createUser,
  currentCode,
  enableTwoFactor,
  TEST_PASSWORD,
} from "../support/accounts";

/**
 * Set-ups done on the phone that holds the authenticator app, at 375 px,
 * with and without JavaScript: the app opened by a link, the key readable,
 * code fields that open the number pad and take the focus, recovery codes
 * and a new token that can be kept (docs/decisions/0129-code-fields-on-a-phone.md,
 * docs/decisions/0130-set-ups-on-one-phone.md).
 */
test.use({ viewport: { width: 375, height: 740 } });

async function expectCodeField(field: Locator) {
  await expect(field).toHaveAttribute("inputmode", "numeric");
  await expect(field).toHaveAttribute("autocomplete", "one-time-code");
  await expect(field).toBeFocused();
}

/** Nothing sticks out of a 375 px screen sideways. */
async function expectNoSidewaysScroll(page: Page) {
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
}

test("two-factor set-up: Add to authenticator, the key in groups of four, a code field with the number pad, recovery codes to download", async ({
  login,
  page,
  context,
  javaScriptEnabled,
  expectAccessible,
}) => {
  const user = await login();
  await page.goto("/profile/two-factor");
  await confirmWithPassword(page);
  await page.getByRole("button", { name: "Start set-up" }).click();
  const addToAuthenticator = page.getByRole("link", { name: "Add to authenticator" });
  await expect(addToAuthenticator).toBeVisible();

  const groups = page.getByTestId("totp-secret").locator("span");
  const key = (await groups.allInnerTexts()).join("");
  expect(key).toMatch(/^[A-Z2-7]{16,}$/);
  const otpauth = new URL((await addToAuthenticator.getAttribute("href"))!);
  expect(otpauth.protocol).toBe("otpauth:");
  expect(otpauth.searchParams.get("secret")).toBe(key);
  expect(decodeURIComponent(otpauth.pathname)).toBe(`/Thoughtfully:${user.email}`);
  // Groups of four, each on one line: a line breaks only between groups.
  for (const [index, group] of (await groups.all()).entries()) {
    const text = await group.innerText();
    expect(text).toBe(key.slice(index * 4, index * 4 + 4));
    expect(await group.evaluate((element) => element.getClientRects().length)).toBe(1);
  }
  await expectCodeField(page.getByLabel("Code from the app"));
  await expect(page.getByRole("link", { name: "Use a recovery code instead" })).toHaveCount(0);
  await expectNoSidewaysScroll(page);
  await expectAccessible();

  await page.getByLabel("Code from the app").fill(await currentCode(key));
  await page.getByRole("button", { name: "Turn on" }).click();
  const listed = page.getByRole("list", { name: "Recovery codes" }).getByRole("listitem");
  await expect(listed).toHaveCount(10);
  const codes = await listed.allInnerTexts();

  const download = page.getByRole("link", { name: "Download", exact: true });
  const href = (await download.getAttribute("href"))!;
  expect(href.startsWith("data:text/plain;charset=utf-8,")).toBe(true);
  const saving = page.waitForEvent("download");
  await download.click();
  const saved = await saving;
  expect(saved.suggestedFilename()).toBe("thoughtfully-recovery-codes.txt");
  const savedText = await fs.readFile((await saved.path())!, "utf8");
  expect(savedText).toBe(decodeURIComponent(href.slice(href.indexOf(",") + 1)));
  expect(savedText).toContain(user.email);
  expect(savedText.trim().split("\n").slice(-10)).toEqual(codes);

  if (javaScriptEnabled) {
    await context.grantPermissions(["clipboard-read", "clipboard-write"]);
    await page.getByRole("button", { name: "Copy" }).click();
    await expect(page.getByRole("button", { name: "Copied" })).toBeVisible();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(savedText);
    await expect(page.getByRole("button", { name: "Print" })).toBeVisible();
  } else {
    await expect(page.getByRole("button", { name: "Copy" })).toHaveCount(0);
    await expect(page.getByText("To print them, use your browser's Print.")).toBeVisible();
  }
  await expectNoSidewaysScroll(page);
  await expectAccessible();
});

test("log-in's code field opens the number pad and takes the focus; a link switches it to a recovery code", async ({
  page,
}) => {
  const user = await createUser();
  await enableTwoFactor(user.id);
  addRecoveryCodes(user.id, ["abcd-efgh-jkmn"]);
  await page.goto("/login");
  await page.getByLabel("Email").fill(user.email);
  await page.getByLabel("Password").fill(TEST_PASSWORD);
  await page.getByRole("button", { name: "Log In" }).click();
  await expect(page.getByRole("heading", { name: "Two-factor sign-in" })).toBeVisible();
  await expectCodeField(page.getByLabel("Code", { exact: true }));

  await page.getByRole("link", { name: "Use a recovery code instead" }).click();
  const recovery = page.getByLabel("Code", { exact: true });
  await expect(recovery).toHaveAttribute("inputmode", "text");
  await expect(recovery).toBeFocused();
  await expect(page.getByText("One of your recovery codes, such as")).toBeVisible();
  await recovery.fill("abcd-efgh-jkmn");
  await page.getByRole("button", { name: "Verify" }).click();
  await expect(page.getByText("You used a recovery code")).toBeVisible();
});

test("confirm it's you: the code field opens the number pad, and keeps where it goes on switching to a recovery code", async ({
  login,
  page,
}) => {
  const user = await login({}, { method: "totp" });
  await enableTwoFactor(user.id);
  await page.goto("/profile/tokens");
  await expect(page).toHaveURL(/\/reauthenticate\?redirectTo=%2Fprofile%2Ftokens$/);
  const code = page.getByLabel("Code", { exact: true });
  await expect(code).toHaveAttribute("inputmode", "numeric");
  await expect(code).toHaveAttribute("autocomplete", "one-time-code");
  // The password form sits above it and keeps the first place.
  await expect(code).not.toBeFocused();
  await page.getByRole("link", { name: "Use a recovery code instead" }).click();
  await expect(page).toHaveURL(/\/reauthenticate\?redirectTo=%2Fprofile%2Ftokens&recovery-code=$/);
  await expect(code).toHaveAttribute("inputmode", "text");
  await page.getByRole("link", { name: "Use a code from your app instead" }).click();
  await expect(page).toHaveURL(/\/reauthenticate\?redirectTo=%2Fprofile%2Ftokens$/);
  await expect(code).toHaveAttribute("inputmode", "numeric");
});

test("a new API token: may write unless chosen, shown whole on a phone, with Copy when JavaScript runs", async ({
  login,
  page,
  context,
  request,
  javaScriptEnabled,
  expectAccessible,
}) => {
  await login();
  await page.goto("/profile/tokens");
  await confirmWithPassword(page);
  const form = page.getByRole("dialog", { name: "New API token" });
  await expect(form.getByLabel("Access")).toHaveValue("write");
  await form.getByLabel("Name").fill("Phone shortcut");
  await form.getByRole("button", { name: "Create token" }).click();

  const shown = page.getByRole("dialog", { name: "Your new API token" });
  await expect(shown.getByText("Anyone holding it can read and change your folders")).toBeVisible();
  const field = shown.getByRole("textbox", { name: "Phone shortcut (write)" });
  const token = await field.inputValue();
  expect(token).toMatch(/^tht_/);
  // Whole: nothing of it is scrolled out of sight.
  expect(
    await field.evaluate(
      (element) =>
        element.scrollWidth <= element.clientWidth && element.scrollHeight <= element.clientHeight,
    ),
  ).toBe(true);
  await expectNoSidewaysScroll(page);
  await expectAccessible();

  const written = await request.post("/api/v1/folders", {
    headers: { Authorization: `Bearer ${token}` },
    data: { name: "From a shortcut", recipients: [{ name: "Ada", email: "ada@example.com" }] },
  });
  expect(written.status()).toBe(201);

  if (javaScriptEnabled) {
    await context.grantPermissions(["clipboard-read", "clipboard-write"]);
    await shown.getByRole("button", { name: "Copy token" }).click();
    await expect(shown.getByRole("button", { name: "Copied" })).toBeVisible();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(token);
  } else {
    await expect(shown.getByRole("button", { name: "Copy token" })).toHaveCount(0);
  }
});
