import http from "node:http";
import { eq } from "drizzle-orm";
import Stripe from "stripe";
import { users } from "#db/schema";
import { expect, test } from "../fixtures";
import {
  confirmWithPassword,
  createUser,
  findUser,
  forgetMailFromThisMachine,
  signIn,
  TEST_PASSWORD,
  testDb,
  uniqueEmail,
} from "../support/accounts";
import { completedCheckoutSession, stripeEventPayload } from "../support/fake-stripe";
import { linkIn, waitForMail } from "../support/mail";

/**
 * Announces a 2 MB webhook body and sends none of it: the answer must come
 * from the declared length alone, before the server reads anything.
 */
function oversizedWebhookStatus(baseURL: string, signature: string) {
  return new Promise<number>((resolve, reject) => {
    const outgoing = http.request(new URL("/webhooks/stripe", baseURL), {
      method: "POST",
      headers: {
        "Content-Type": "application/json",
        "Content-Length": String(2 * 1024 * 1024),
        "Stripe-Signature": signature,
      },
    });
    outgoing.on("response", (response) => {
      resolve(response.statusCode ?? 0);
      outgoing.destroy();
    });
    outgoing.on("error", reject);
    outgoing.flushHeaders();
  });
}

test.describe("Invite friends, get folders", () => {
  test.beforeEach(() => forgetMailFromThisMachine("sign-up"));

  test("an invitee signs up through the link and verifies; the inviter's stats and folder limit grow", async ({
    page,
    browser,
    baseURL,
    javaScriptEnabled,
    expectAccessible,
  }) => {
    const inviter = await createUser();
    await signIn(page.context(), inviter.id, baseURL!);
    await page.goto("/");
    await expect(page.getByText("Folders: 0 of 5")).toBeVisible();
    await page.getByRole("link", { name: "Invite friends, get folders" }).click();
    await expect(page.getByRole("dialog", { name: "Invite friends, get folders" })).toBeVisible();
    if (!javaScriptEnabled) {
      // Opening the dialog changed nothing; the button makes the code.
      await page.getByRole("button", { name: "Create my invite link" }).click();
    }
    const linkField = page.getByLabel("Your invite link");
    await expect(linkField).toHaveValue(/\/signup\?ref=[A-Z0-9]{1,10}$/);
    const inviteLink = await linkField.inputValue();
    expect(inviteLink.startsWith(`${baseURL}/signup?ref=`)).toBe(true);
    if (javaScriptEnabled) {
      await expect(page.getByRole("button", { name: "Copy link" })).toBeVisible();
    }
    const dialog = page.getByRole("dialog");
    await expect(dialog.getByText("Friends joined")).toBeVisible();
    await expect(dialog.getByText("Your folder limit is now 5.")).toBeVisible();
    await expectAccessible();

    // The invitee, in a browser of their own.
    const inviteeContext = await browser.newContext({ baseURL, javaScriptEnabled });
    try {
      const invitee = await inviteeContext.newPage();
      const email = uniqueEmail("invitee");
      await invitee.goto(inviteLink);
      await invitee.getByLabel("First name").fill("Ivy");
      await invitee.getByLabel("Last name").fill("Invitee");
      await invitee.getByLabel("Email").fill(email);
      await invitee.getByLabel("Password").fill(TEST_PASSWORD);
      await invitee.getByRole("button", { name: "Create Account" }).click();
      await expect(invitee).toHaveURL(/\/check-email$/);

      // Pending until verified: nothing yet.
      await page.reload();
      await expect(page.getByRole("dialog").getByText("Your folder limit is now 5.")).toBeVisible();

      const verifyLink = linkIn(await waitForMail(email, /Confirm your e-mail/), "/verify-email");
      await invitee.goto(verifyLink);
      // The page never verifies by itself: the person presses the button.
      await invitee.getByRole("button", { name: "Verify my email" }).click();
      await expect(invitee).toHaveURL(/\/folders\/new$/);
      expect(findUser(email)?.emailVerified).toBe(true);
    } finally {
      await inviteeContext.close();
    }

    await page.reload();
    const stats = page.getByRole("dialog");
    await expect(stats.getByText("Your folder limit is now 6.")).toBeVisible();
    await expect(stats.getByText("+1", { exact: true })).toBeVisible();
    await expect(stats.getByText("+10.0 MB")).toBeVisible();
    await page.goto("/");
    await expect(page.getByText("Folders: 0 of 6")).toBeVisible();
  });
});

test.describe("Premium", () => {
  test("Upgrade goes to Stripe Checkout; only the signed webhook grants premium; the portal opens from the profile", async ({
    page,
    baseURL,
    request,
  }) => {
    const user = await createUser();
    await signIn(page.context(), user.id, baseURL!);
    await page.goto("/");
    await page.getByRole("link", { name: "Upgrade to Premium" }).click();
    await expect(page.getByRole("dialog", { name: "Upgrade to Premium" })).toBeVisible();
    await page.getByRole("button", { name: "Upgrade", exact: true }).click();

    // The fake Stripe's hosted checkout page, on its own origin.
    await expect(page.getByRole("heading", { name: "Fake Stripe Checkout" })).toBeVisible();
    expect(page.url().startsWith(`${process.env.E2E_STRIPE_ORIGIN}/pay/cs_test_`)).toBe(true);
    const customerId = findUser(user.email)!.stripeCustomerId;
    expect(customerId).toMatch(/^cus_/);

    const checkoutSessionId = new URL(page.url()).pathname.split("/").at(-1)!;
    await page.getByRole("link", { name: "Pay" }).click();
    await expect(page).toHaveURL(/\/billing\/success\?session_id=cs_test_/);
    await expect(page.getByRole("heading", { name: "Thank you!" })).toBeVisible();
    expect(findUser(user.email)!.subscriptionTier).toBe("free");

    const payload = stripeEventPayload(
      "checkout.session.completed",
      completedCheckoutSession({
        id: checkoutSessionId,
        userId: user.id,
        customer: customerId!,
        subscription: `sub_e2e_${user.id}`,
      }),
      { id: `evt_e2e_${user.id}` },
    );
    const signature = new Stripe("sk_test_unused").webhooks.generateTestHeaderString({
      payload,
      secret: process.env.E2E_STRIPE_WEBHOOK_SECRET!,
    });
    const unsigned = await request.post("/webhooks/stripe", {
      data: payload,
      headers: { "Content-Type": "application/json", "Stripe-Signature": "t=1,v1=bad" },
    });
    expect(unsigned.status()).toBe(400);
    expect(await oversizedWebhookStatus(baseURL!, signature)).toBe(413);
    const signed = await request.post("/webhooks/stripe", {
      data: payload,
      headers: { "Content-Type": "application/json", "Stripe-Signature": signature },
    });
    expect(signed.status()).toBe(200);
    expect(testDb().select().from(users).where(eq(users.id, user.id)).get()!.subscriptionTier).toBe(
      "premium",
    );

    await page.reload();
    await expect(page.getByRole("heading", { name: "Welcome to Premium" })).toBeVisible();
    await page.goto("/");
    await expect(page.getByRole("heading", { name: "My Folders" })).toBeVisible();
    await expect(page.getByRole("link", { name: "Upgrade to Premium" })).toHaveCount(0);

    await page.goto("/profile");
    await expect(page.getByText("Premium", { exact: true })).toBeVisible();
    await page.getByRole("button", { name: "Manage billing" }).click();
    await expect(page.getByRole("heading", { name: "Fake Stripe customer portal" })).toBeVisible();
    await page.getByRole("link", { name: "Return" }).click();
    await expect(page).toHaveURL(/\/profile$/);
    // The URL changes when the page starts loading: a click before it has loaded can be lost.
    await page.waitForLoadState("load");
    await expect(page.getByRole("heading", { name: "Profile Settings" })).toBeVisible();

    // Deleting the account says what happens to the subscription, and ends it. A click that
    // lands while React is still hydrating the page is dropped (seen once in CI): pressed again.
    await expect(async () => {
      await page.getByRole("link", { name: "Delete Account" }).click();
      await expect(page.getByRole("heading", { name: "Confirm it's you" })).toBeVisible({
        timeout: 3_000,
      });
    }).toPass({ timeout: 15_000 });
    await confirmWithPassword(page);
    const dialog = page.getByRole("dialog", { name: "Are you absolutely sure?" });
    await expect(
      dialog.getByText(
        "Your Premium subscription is cancelled with Stripe at once: no further payment is taken.",
      ),
    ).toBeVisible();
    await dialog.getByRole("button", { name: "Yes, delete my account" }).click();
    await expect(page.getByText("Account deleted")).toBeVisible();
    expect(findUser(user.email)).toBeUndefined();
  });
});
