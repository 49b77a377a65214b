import crypto from "node:crypto";
import { and, eq } from "drizzle-orm";
import {
  deliveryReports,
  mailboxSuppressions,
  securityEvents,
  sendLedger,
  sendLedgerRecipients,
  userRoles,
  users,
} from "#db/schema";
import { expect, test } from "../fixtures";
import {
  createFolderRow,
  createUser,
  enableTwoFactor,
  signIn,
  signInWithSecondFactor,
  testDb,
  uniqueEmail,
} from "../support/accounts";
import { createItemRow } from "../support/items";

/**
 * Issue 39 as the sender and the admin see it, with and without JavaScript.
 * Reports and suppressions are written straight into their tables, as the
 * report intake leaves them (db/schema.ts documents both); mailboxes are the
 * plain lower-case addresses, which are their own `mailboxKey`.
 */
let counter = 0;

function report(
  senderUserId: number,
  email: string,
  kind: "hard_bounce" | "soft_bounce" | "complaint",
  ledgerRecipientId: number | null = null,
) {
  counter += 1;
  testDb()
    .insert(deliveryReports)
    .values({
      source: "e2e",
      sourceEventId: `${email}-${kind}-${counter}-${Date.now()}`,
      senderUserId,
      ledgerRecipientId,
      email,
      mailbox: email,
      kind,
      occurredAt: new Date(),
    })
    .run();
}

function suppress(email: string, reason: "hard_bounce" | "complaint") {
  testDb().insert(mailboxSuppressions).values({ mailbox: email, email, reason }).run();
}

/** A sender whose folder sent one issue to Mum and Sam; Mum's address is gone, Sam complained. */
async function senderWithReports() {
  const user = await createUser();
  const mum = uniqueEmail("mum");
  const sam = uniqueEmail("sam");
  const folder = createFolderRow(user.id, {
    name: "Family",
    recipients: [
      { name: "Mum", email: mum },
      { name: "Sam", email: sam },
    ],
  });
  const sentAt = new Date();
  const ledger = testDb()
    .insert(sendLedger)
    .values({
      folderId: folder.id,
      occurrenceKey: `send-now:${sentAt.toISOString()}`,
      trigger: "send_now",
      status: "sent",
      completedAt: sentAt,
    })
    .returning()
    .get();
  const [mumCopy, samCopy] = testDb()
    .insert(sendLedgerRecipients)
    .values([
      { ledgerId: ledger.id, email: mum, status: "sent" as const, sentAt },
      { ledgerId: ledger.id, email: sam, status: "sent" as const, sentAt },
    ])
    .returning()
    .all();
  report(user.id, mum, "hard_bounce", mumCopy!.id);
  report(user.id, sam, "complaint", samCopy!.id);
  suppress(mum, "hard_bounce");
  suppress(sam, "complaint");
  return { user, folder, ledger, mum, sam };
}

function suppressionOf(email: string) {
  return testDb()
    .select()
    .from(mailboxSuppressions)
    .where(eq(mailboxSuppressions.mailbox, email))
    .get();
}

function pause(userId: number, reason: string) {
  testDb()
    .update(users)
    .set({ sendingPausedAt: new Date(), sendingPausedReason: reason })
    .where(eq(users.id, userId))
    .run();
}

test.describe("the sender sees reports in plain words", () => {
  test("on the recipients page and in the Sent archive", async ({
    context,
    baseURL,
    page,
    expectAccessible,
  }) => {
    const { user, folder, ledger } = await senderWithReports();
    await signIn(context, user.id, baseURL!, testDb());

    await page.goto(`/folders/${folder.id}/recipients`);
    const recipients = page.getByRole("dialog", { name: 'Recipients of "Family"' });
    await expect(
      recipients.getByText("Mum's address no longer exists: nothing is sent to it"),
    ).toBeVisible();
    await expect(
      recipients.getByText(
        "Sam marked your newsletter as spam: nothing is sent to them unless they re-subscribe",
      ),
    ).toBeVisible();
    await expect(recipients.getByText("Not mailed")).toHaveCount(2);
    await expectAccessible();

    await page.goto(`/folders/${folder.id}/sent`);
    const sent = page.getByRole("dialog", { name: 'Sent from "Family"' });
    await expect(sent.getByText("Mum's address no longer exists")).toBeVisible();
    await expect(sent.getByText("Sam marked your newsletter as spam")).toBeVisible();

    await page.goto(`/folders/${folder.id}/sent/${ledger.id}`);
    const issue = page.getByRole("dialog");
    await expect(issue.getByRole("cell", { name: /Mum's address no longer exists/ })).toBeVisible();
    await expect(
      issue.getByRole("cell", { name: /Sam marked your newsletter as spam/ }),
    ).toBeVisible();
  });

  test("the folder form refuses adding a mailbox that no longer exists or reported spam", async ({
    login,
    page,
  }) => {
    const user = await login();
    const folder = createFolderRow(user.id, {
      name: "Family",
      recipients: [{ name: "Dad", email: uniqueEmail("dad") }],
    });
    const gone = uniqueEmail("gone");
    const spam = uniqueEmail("spam");
    suppress(gone, "hard_bounce");
    suppress(spam, "complaint");
    await page.goto(`/folders/${folder.id}/edit`);
    const dialog = page.getByRole("dialog", { name: "Folder Details" });
    await dialog.getByRole("button", { name: "Add recipient" }).click();
    await dialog.getByLabel("Recipient 2 name").fill("Mum");
    await dialog.getByLabel("Recipient 2 email").fill(gone);
    await dialog.getByRole("button", { name: "Add recipient" }).click();
    await dialog.getByLabel("Recipient 3 name").fill("Sam");
    await dialog.getByLabel("Recipient 3 email").fill(spam);
    await dialog.getByRole("button", { name: "Save" }).click();
    await expect(
      dialog.getByText("Mum's address no longer exists: mail to it comes back undelivered"),
    ).toBeVisible();
    await expect(
      dialog.getByText(
        "Sam reported mail sent through Thoughtfully as spam: only they can lift that, by re-subscribing from a link they received",
      ),
    ).toBeVisible();
    await expect(dialog.getByLabel("Recipient 2 email")).toHaveValue(gone);
    await expect(dialog.getByLabel("Recipient 3 email")).toHaveValue(spam);
  });
});

test("only the recipient lifts their complaint, by re-subscribing from their own link", async ({
  context,
  baseURL,
  page,
}) => {
  const { user, folder, sam } = await senderWithReports();
  const token = crypto
    .createHmac("sha256", process.env.E2E_SESSION_SECRET!)
    .update(`resubscribe:${folder.id}:${sam}`)
    .digest("base64url");
  const query = new URLSearchParams({ email: sam, folder: String(folder.id), token });
  await page.goto(`${baseURL}/resubscribe?${query}`);
  // Opening the link (as a mail scanner does) lifts nothing: only the press does.
  expect(suppressionOf(sam)).toBeDefined();
  await page.getByRole("button", { name: "Re-subscribe" }).click();
  await expect(
    page.getByRole("heading", { name: "You're back on the list for Family" }),
  ).toBeVisible();
  expect(suppressionOf(sam)).toBeUndefined();

  await signIn(context, user.id, baseURL!, testDb());
  await page.goto(`/folders/${folder.id}/recipients`);
  const recipients = page.getByRole("dialog", { name: 'Recipients of "Family"' });
  await expect(
    recipients.getByText("Mum's address no longer exists: nothing is sent to it"),
  ).toBeVisible();
  await expect(recipients.getByText(/Sam marked your newsletter as spam/)).toHaveCount(0);
  await expect(recipients.getByText("Not mailed")).toHaveCount(1);
});

test("a paused sender sees why on the dashboard, and Send Now is refused with it", async ({
  login,
  page,
  expectAccessible,
}) => {
  const user = await login();
  const folder = createFolderRow(user.id, { name: "Family" });
  createItemRow(folder.id, { title: "A thought for Mum" });
  // The confirmation was open before the pause: its Send Now is refused all the same.
  await page.goto(`/folders/${folder.id}/confirm-send`);
  const reason =
    "2 people marked your newsletter as spam, out of 20 copies sent recently (10 %; the limit is 0.1 %).";
  pause(user.id, reason);
  await page.getByRole("dialog").getByRole("button", { name: "Send Now" }).click();
  const toast = page.getByRole("region", { name: "Notifications" });
  await expect(toast).toContainText("Send Failed");
  await expect(toast).toContainText(`Your sending is paused: ${reason}`);
  const banner = page.getByRole("region", { name: "Your sending is paused" });
  await expect(banner).toContainText(reason);
  await expect(banner).toContainText("held, not lost");
  await expect(
    page.getByText("Your sending is paused: see why at the top of the page."),
  ).toBeVisible();
  expect(
    testDb().select().from(sendLedger).where(eq(sendLedger.folderId, folder.id)).all(),
  ).toEqual([]);
  await page.goto("/");
  await expect(page.getByRole("region", { name: "Your sending is paused" })).toBeVisible();
  await expectAccessible();
});

test.describe("the admin's postmaster view", () => {
  async function createAdmin() {
    const admin = await createUser({ firstName: "Grace", lastName: "Admin" });
    testDb()
      .insert(userRoles)
      .values({ userId: admin.id, role: "admin", grantReason: "e2e" })
      .run();
    await enableTwoFactor(admin.id);
    return admin;
  }

  test("shows the rates with the paused sender marked, and lifts the pause", async ({
    context,
    baseURL,
    page,
    expectAccessible,
  }) => {
    const { user } = await senderWithReports();
    const { user: newcomer } = await senderWithReports();
    const reason =
      "3 of the addresses you sent to no longer exist, out of 20 copies sent recently (15 %; the limit is 5 %).";
    pause(user.id, reason);
    const admin = await createAdmin();
    await signInWithSecondFactor(context, admin.id, baseURL!);

    await page.goto("/admin/security");
    const panel = page.getByRole("region", { name: "Senders by complaint and bounce rate table" });
    const row = panel.getByRole("row").filter({ hasText: user.email });
    await expect(row).toContainText("Paused");
    await expect(row).toContainText("1 (50 %)");
    // A sender over a rate on two copies is not paused, and the panel says why.
    const newcomerRow = panel.getByRole("row").filter({ hasText: newcomer.email });
    await expect(newcomerRow).toContainText("Active");
    await expect(newcomerRow).toContainText("Under 20 copies: too few to judge a rate");
    await expect(page.getByText("Suppressed: reported spam")).toBeVisible();
    await expectAccessible();

    await row.getByRole("link", { name: user.email }).click();
    await expect(page).toHaveURL(new RegExp(`/admin/senders/${user.id}$`));
    await expect(page.getByText(reason)).toBeVisible();
    await expectAccessible();
    await page.getByRole("button", { name: "Lift the pause" }).click();
    await expect(page.getByRole("region", { name: "Notifications" })).toContainText("Pause lifted");
    await expect(page.getByText("Active: their mail is sent.")).toBeVisible();
    expect(
      testDb().select().from(users).where(eq(users.id, user.id)).get()?.sendingPausedAt,
    ).toBeNull();
    const lifted = testDb()
      .select()
      .from(securityEvents)
      .where(and(eq(securityEvents.targetUserId, user.id), eq(securityEvents.userId, admin.id)))
      .all();
    expect(lifted.map((event) => [event.eventType, event.details?.action])).toEqual([
      ["admin_access", "sending_pause_lifted"],
    ]);
  });
});
