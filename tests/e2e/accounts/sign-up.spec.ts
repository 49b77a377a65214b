import crypto from "node:crypto";
import type { Page } from "@playwright/test";
import { expect, test } from "../fixtures";
import {
  createUser,
  findUser,
  forgetMailFromThisMachine,
  TEST_PASSWORD,
  uniqueEmail,
} from "../support/accounts";
import { linkIn, waitForMail } from "../support/mail";
import { TapCounter } from "../support/taps";

/**
 * Sign-up that signs you in (docs/decisions/0140-sign-up-that-signs-you-in.md):
 * "Verify my email" signs the person in, on their first folder, only in the
 * browser that signed up; opened anywhere else the link verifies and asks to
 * log in. At 375 px, with and without JavaScript.
 */
test.use({ viewport: { width: 375, height: 740 } });

const PROOF_COOKIE = "thoughtfully_sign_up";

async function signUp(page: Page, email: string, taps = new TapCounter(page)) {
  forgetMailFromThisMachine("sign-up");
  await page.goto("/signup");
  await taps.type(page.getByLabel("First name"), "Ada");
  await taps.type(page.getByLabel("Last name"), "Lovelace");
  await taps.type(page.getByLabel("Email"), email);
  await taps.type(page.getByLabel("Password"), TEST_PASSWORD);
  await taps.tap(page.getByRole("button", { name: "Create Account" }));
  // Sign-up hashes the password for real: slow on a busy machine.
  await expect(page).toHaveURL(/\/check-email$/, { timeout: 15_000 });
  return taps;
}

/** Signed out: "/" is the landing page, not the dashboard. */
async function expectSignedOut(page: Page) {
  await page.goto("/");
  await expect(page.getByRole("heading", { name: "Share Thoughtfully." })).toBeVisible();
}

test("sign-up signs you in on your first folder, in at most seven taps", async ({
  page,
  context,
  expectAccessible,
}) => {
  const email = uniqueEmail("ada");
  const taps = await signUp(page, email);

  // "Check your email" names the address and fills the resend form with it.
  await expect(page.getByText(`We've sent a link to ${email}`)).toBeVisible();
  await expect(page.getByRole("textbox", { name: "Email" })).toHaveValue(email);
  await expectAccessible();

  await taps.openLink(linkIn(await waitForMail(email, /Confirm your e-mail/), "/verify-email"));
  await taps.tap(page.getByRole("button", { name: "Verify my email" }));

  await expect(page).toHaveURL(/\/folders\/new$/);
  await expect(page.getByRole("dialog", { name: "Folder Details" })).toBeVisible();
  await expect(page.locator("summary", { hasText: "Ada Lovelace" })).toBeVisible();
  expect(findUser(email)?.emailVerified).toBe(true);
  expect(taps.count).toBeLessThanOrEqual(7);
  // The proof is spent.
  expect((await context.cookies()).map((cookie) => cookie.name)).not.toContain(PROOF_COOKIE);
});

test("the link opened in another browser verifies and asks to log in", async ({
  page,
  browser,
  baseURL,
  javaScriptEnabled,
}) => {
  const email = uniqueEmail("elsewhere");
  await signUp(page, email);
  const link = linkIn(await waitForMail(email, /Confirm your e-mail/), "/verify-email");

  const elsewhere = await browser.newContext({ baseURL, javaScriptEnabled });
  try {
    const other = await elsewhere.newPage();
    await other.goto(link);
    await other.getByRole("button", { name: "Verify my email" }).click();
    await expect(other.getByRole("heading", { name: "Email verified" })).toBeVisible();
    expect(findUser(email)?.emailVerified).toBe(true);
    await expect(other).toHaveURL(/\/login$/, { timeout: 8_000 });
    await expectSignedOut(other);
  } finally {
    await elsewhere.close();
  }
});

test("signing up with the address of an existing account never signs that browser in", async ({
  page,
}) => {
  // Someone signed up with this address and never confirmed it; the link is in their mailbox.
  const token = "the-owner-s-own-link";
  const owner = await createUser({
    emailVerified: false,
    emailVerificationToken: crypto.createHash("sha256").update(token).digest("hex"),
    emailVerificationExpiresAt: new Date(Date.now() + 60 * 60 * 1000),
  });
  await signUp(page, owner.email);
  // The page reads the same as for a new address.
  await expect(page.getByText(`We've sent a link to ${owner.email}`)).toBeVisible();

  await page.goto(`/verify-email?token=${token}`);
  await page.getByRole("button", { name: "Verify my email" }).click();
  await expect(page.getByRole("heading", { name: "Email verified" })).toBeVisible();
  expect(findUser(owner.email)?.emailVerified).toBe(true);
  await expectSignedOut(page);
});

test("the password's rule is said once: by the hint, or by the error in its place", async ({
  page,
}) => {
  await page.goto("/signup");
  const password = page.getByLabel("Password");
  await expect(password).toHaveAccessibleDescription("Must be at least 8 characters long");
  await page.getByLabel("First name").fill("Ada");
  await page.getByLabel("Last name").fill("Lovelace");
  await page.getByLabel("Email").fill(uniqueEmail("short"));
  await password.fill("short");
  await page.getByRole("button", { name: "Create Account" }).click();
  await expect(password).toHaveAttribute("aria-invalid", "true");
  await expect(password).toHaveAccessibleDescription("Must be at least 8 characters long");
  await expect(page.getByText(/at least 8 characters/i)).toHaveCount(1);
});
