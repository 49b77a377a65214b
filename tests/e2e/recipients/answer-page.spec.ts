import crypto from "node:crypto";
import { and, eq } from "drizzle-orm";
import { itemAnswers, rateLimits, sendLedger, sendLedgerRecipients } from "#db/schema";
import { createSentIssue } from "#db/sent-issue-factories";
import { expect, test } from "../fixtures";
import { createFolderRow, createUser, testDb, uniqueEmail } from "../support/accounts";

/**
 * A recipient answers an item (docs/decisions/0159-recipients-answer-back.md):
 * the one-button answer page /a/<code> and the hearts of the web version, with
 * and without JavaScript. Sent issues are written into the database as a
 * finished send leaves them; links are signed with the server's
 * SESSION_SECRET exactly as app/modules/recipients/recipient-links.server.ts
 * signs them, and what was recorded is read back from the database.
 */
function sign(message: string) {
  return crypto
    .createHmac("sha256", process.env.E2E_SESSION_SECRET!)
    .update(message)
    .digest("base64url");
}

function answerPath(copyId: number, itemId: number) {
  const signature = sign(`answer:${copyId}:${itemId}`).slice(0, 22);
  return `/a/${copyId.toString(36)}.${itemId.toString(36)}.${signature}`;
}

function webVersionPath(ledgerId: number, email: string) {
  const token = sign(`issue-web:${ledgerId}:${email}`);
  return `/v/${Buffer.from(`${ledgerId}:${email}`).toString("base64url")}.${token}`;
}

/** Two items sent to Mum, with Ada's own copy (cc) beside hers. */
async function sentIssue() {
  const user = await createUser();
  const mum = uniqueEmail("mum");
  const folder = createFolderRow(user.id, {
    name: "Family",
    recipients: [{ name: "Mum", email: mum }],
  });
  const { ledger, items, copies } = createSentIssue(testDb(), folder.id, {
    titles: ["Tide tables for the bay", "Our garden"],
    emails: [mum],
  });
  const copy = copies[0]!;
  const ownCopy = testDb()
    .insert(sendLedgerRecipients)
    .values({ ledgerId: ledger.id, email: user.email, kind: "cc", status: "sent" })
    .returning()
    .get();
  return {
    user,
    folder,
    ledger,
    items,
    mum,
    copy,
    ownCopy,
    path: answerPath(copy.id, items[0]!.id),
    webPath: webVersionPath(ledger.id, mum),
  };
}

function answersOf(copyId: number) {
  return testDb().select().from(itemAnswers).where(eq(itemAnswers.copyId, copyId)).all();
}

function heartOn(copyId: number, itemId: number) {
  return testDb()
    .select()
    .from(itemAnswers)
    .where(
      and(
        eq(itemAnswers.copyId, copyId),
        eq(itemAnswers.itemId, itemId),
        eq(itemAnswers.kind, "heart"),
      ),
    )
    .all().length;
}

test.describe("the answer page", () => {
  test("opening it records nothing; the one button gives a heart and takes it back; a note shows as the reader's own", async ({
    page,
    expectAccessible,
  }) => {
    const { copy, items, path } = await sentIssue();
    const response = await page.goto(path);
    expect(response?.status()).toBe(200);
    expect(response?.headers()["x-robots-tag"]).toContain("noindex");
    expect(response?.headers()["cache-control"]).toContain("no-store");
    expect(response?.headers()["referrer-policy"]).toBe("same-origin");
    await expect(page.getByRole("heading", { level: 1, name: "Answer Ada" })).toBeVisible();
    await expect(page.getByText("Tide tables for the bay")).toBeVisible();
    await expect(page.getByText("Hearts and notes you send go only to Ada.")).toBeVisible();
    expect(answersOf(copy.id)).toEqual([]);
    await expectAccessible();

    await page.getByRole("button", { name: "Send a heart" }).click();
    await expect(page.getByRole("button", { name: "Take back the heart" })).toBeVisible();
    await expect(page.getByRole("status").filter({ hasText: "Heart sent" })).toBeVisible();
    expect(heartOn(copy.id, items[0]!.id)).toBe(1);
    // Reloading the page after the press does not press again.
    await page.reload();
    expect(heartOn(copy.id, items[0]!.id)).toBe(1);

    await page.getByRole("button", { name: "Take back the heart" }).click();
    await expect(page.getByRole("button", { name: "Send a heart" })).toBeVisible();
    expect(heartOn(copy.id, items[0]!.id)).toBe(0);

    // Plain text, shown as typed: markup in a note is never read as markup.
    const note = "<b>Thank you</b> for the tides!\nSee you Sunday.";
    await page.getByLabel("Write back to Ada").fill(note);
    await page.getByRole("button", { name: "Send note" }).click();
    const mine = page.getByRole("region", { name: "Your notes to Ada" });
    await expect(mine.getByRole("listitem")).toHaveText(note);
    await expect(mine.locator("b")).toHaveCount(0);
    await expect(page.getByLabel("Write back to Ada")).toHaveValue("");
    expect(answersOf(copy.id).map(({ kind, body, itemId }) => ({ kind, body, itemId }))).toEqual([
      { kind: "note", body: note, itemId: items[0]!.id },
    ]);
    await expectAccessible();

    // The way to the whole issue.
    await page.getByRole("link", { name: "Read the whole issue" }).click();
    await expect(page.getByRole("heading", { level: 2, name: "Our garden" })).toBeVisible();
  });

  test("a note's problem is told beside the field, with what was typed kept", async ({
    page,
    javaScriptEnabled,
  }) => {
    const { copy, ledger, user, folder, items, path } = await sentIssue();
    await page.goto(path);
    const field = page.getByLabel("Write back to Ada");

    await field.fill("   ");
    await page.getByRole("button", { name: "Send note" }).click();
    await expect(page.getByText("Please write a few words first.")).toBeVisible();

    const long = "A very long note. ".repeat(60);
    await field.fill(long);
    await page.getByRole("button", { name: "Send note" }).click();
    await expect(page.getByText("Please keep your note under 1000 characters.")).toBeVisible();
    await expect(field).toHaveValue(long);
    await expect(field).toHaveAttribute("aria-invalid", "true");

    // The issue has gathered all the notes it can take (from another recipient here).
    const dad = testDb()
      .insert(sendLedgerRecipients)
      .values({ ledgerId: ledger.id, email: uniqueEmail("dad"), status: "sent" })
      .returning()
      .get();
    testDb()
      .insert(itemAnswers)
      .values(
        Array.from({ length: 30 }, (_, index) => ({
          userId: user.id,
          folderId: folder.id,
          ledgerId: ledger.id,
          copyId: dad.id,
          itemId: items[1]!.id,
          email: dad.email,
          kind: "note" as const,
          body: `Note ${index}`,
        })),
      )
      .run();
    await field.fill("Lovely, thank you");
    // With JavaScript, the characters typed are counted.
    if (javaScriptEnabled) await expect(page.getByText("17/1000")).toBeVisible();
    await page.getByRole("button", { name: "Send note" }).click();
    await expect(
      page.getByText("This issue has gathered all the notes it can take."),
    ).toBeVisible();
    await expect(field).toHaveValue("Lovely, thank you");
    expect(answersOf(copy.id)).toEqual([]);
    // Nothing of the other recipient's notes is shown to this one.
    await expect(page.getByText("Note 1", { exact: true })).toHaveCount(0);

    // A reader who has written all the notes one person can is told so, with no form.
    testDb()
      .insert(itemAnswers)
      .values(
        Array.from({ length: 10 }, (_, index) => ({
          userId: user.id,
          folderId: folder.id,
          ledgerId: ledger.id,
          copyId: copy.id,
          itemId: items[1]!.id,
          email: copy.email,
          kind: "note" as const,
          body: `Mine ${index}`,
        })),
      )
      .run();
    await page.goto(path);
    await expect(
      page.getByText("You have written 10 notes about this issue, the most one person can."),
    ).toBeVisible();
    await expect(page.getByRole("button", { name: "Send note" })).toHaveCount(0);
    await expect(page.getByRole("button", { name: "Send a heart" })).toBeVisible();
  });

  test("a forged or swapped code is a plain 404; the sender's own copy and a deleted issue say why", async ({
    page,
  }) => {
    const { copy, ownCopy, items, ledger, path } = await sentIssue();
    const other = await sentIssue();
    for (const unknown of [
      `${path.slice(0, -1)}${path.endsWith("A") ? "B" : "A"}`,
      // Genuinely signed, but for an item that was not in this issue.
      answerPath(copy.id, other.items[0]!.id),
    ]) {
      expect((await page.goto(unknown))?.status()).toBe(404);
      await expect(page.getByText("Ada Lovelace")).toHaveCount(0);
      await expect(page.getByRole("button", { name: "Send a heart" })).toHaveCount(0);
    }

    expect((await page.goto(answerPath(ownCopy.id, items[0]!.id)))?.status()).toBe(200);
    await expect(
      page.getByRole("heading", { level: 1, name: "This is your own copy" }),
    ).toBeVisible();
    await expect(page.getByText("Answers from your recipients appear in Sent")).toBeVisible();
    await expect(page.getByRole("button", { name: "Send a heart" })).toHaveCount(0);

    // As deleting a sent issue leaves it (app/modules/sending/sent-archive.server.ts).
    testDb()
      .update(sendLedger)
      .set({ deletedAt: new Date() })
      .where(eq(sendLedger.id, ledger.id))
      .run();
    expect((await page.goto(path))?.status()).toBe(404);
    await expect(
      page.getByRole("heading", { level: 1, name: "This issue is no longer available" }),
    ).toBeVisible();
    await expect(page.getByText('Ada Lovelace deleted this issue of "Family".')).toBeVisible();
  });

  test("after unsubscribing, the page says so with the way back, and a press records nothing", async ({
    page,
    context,
    expectAccessible,
  }) => {
    const { copy, path, webPath } = await sentIssue();
    // The answer page stays open in a tab while the reader unsubscribes in another.
    await page.goto(path);
    const other = await context.newPage();
    await other.goto(webPath);
    await other.getByRole("link", { name: "Unsubscribe" }).click();
    await other.getByRole("button", { name: "Unsubscribe" }).click();
    await expect(other.getByRole("heading", { name: "You're unsubscribed" })).toBeVisible();

    await page.getByRole("button", { name: "Send a heart" }).click();
    await expect(
      page.getByRole("heading", { level: 1, name: "You left this folder" }),
    ).toBeVisible();
    expect(answersOf(copy.id)).toEqual([]);
    expect((await page.goto(path))?.status()).toBe(404);
    await expect(page.getByText('You unsubscribed from "Family" from Ada Lovelace')).toBeVisible();
    await expectAccessible();

    // The existing re-subscribe flow: nothing changes until its own button is pressed.
    await page.getByRole("button", { name: "Re-subscribe" }).click();
    await expect(page.getByRole("heading", { level: 1, name: "Re-subscribe" })).toBeVisible();
  });

  test("a link used very often waits", async ({ page }) => {
    const { copy, path } = await sentIssue();
    // As app/modules/answers/answer-link-limit.server.ts leaves a copy that used all its uses.
    testDb()
      .insert(rateLimits)
      .values({ key: `answer-link:copy:${copy.id}`, points: 300, expire: Date.now() + 600_000 })
      .run();
    const response = await page.goto(path);
    expect(response?.status()).toBe(429);
    expect(response?.headers()["retry-after"]).toMatch(/^\d+$/);
    await expect(page.getByText("This link has been used very often.")).toBeVisible();
    await expect(page.getByRole("button", { name: "Send a heart" })).toHaveCount(0);
  });
});

test.describe("hearts on the web version", () => {
  test("each item's heart toggles, and its Write back leads to the answer page", async ({
    page,
    javaScriptEnabled,
    expectAccessible,
  }) => {
    const { copy, items, webPath } = await sentIssue();
    await page.goto(webPath);
    await expect(page.getByText("Hearts and notes you send go only to Ada.")).toBeVisible();
    await expectAccessible();
    const garden = page.getByRole("region", { name: "Our garden" });
    if (javaScriptEnabled) {
      // Toggled in place: the page is never loaded again.
      await page.evaluate(() => Object.assign(window, { stayedOnPage: true }));
    }

    await garden.getByRole("button", { name: "Send a heart" }).click();
    await expect(garden.getByRole("button", { name: "Take back the heart" })).toBeVisible();
    await expect(garden.getByText("Ada sees your heart")).toBeVisible();
    await expect.poll(() => heartOn(copy.id, items[1]!.id)).toBe(1);
    expect(heartOn(copy.id, items[0]!.id)).toBe(0);
    await expect(
      page.getByRole("region", { name: "Tide tables for the bay" }).getByRole("button"),
    ).toHaveText("♥ Send a heart");
    if (javaScriptEnabled) {
      expect(await page.evaluate(() => "stayedOnPage" in window)).toBe(true);
      // Not even a navigation within the app: no redirect to the item, no toast.
      expect(new URL(page.url()).pathname + new URL(page.url()).hash).toBe(webPath);
      await expect(page.getByRole("status").filter({ hasText: "Heart sent" })).toHaveCount(0);
    } else {
      // Back from the answer page, at the item.
      expect(page.url()).toContain(`${webPath}#item-${items[1]!.id}`);
      await expect(page.getByRole("status").filter({ hasText: "Heart sent" })).toBeVisible();
    }

    await garden.getByRole("button", { name: "Take back the heart" }).click();
    await expect(garden.getByRole("button", { name: "Send a heart" })).toBeVisible();
    await expect(garden.getByText("Ada sees your heart")).toHaveCount(0);
    await expect.poll(() => heartOn(copy.id, items[1]!.id)).toBe(0);

    await garden.getByRole("link", { name: "Write back to Ada" }).click();
    await expect(page.getByRole("heading", { level: 1, name: "Answer Ada" })).toBeVisible();
    await expect(page.getByText("Our garden")).toBeVisible();
    expect(new URL(page.url()).hash).toBe("#note");
  });

  test("the sender's own copy has no hearts", async ({ page }) => {
    const { ledger, user } = await sentIssue();
    expect((await page.goto(webVersionPath(ledger.id, user.email)))?.status()).toBe(200);
    await expect(page.getByRole("heading", { level: 2, name: "Our garden" })).toBeVisible();
    await expect(page.getByRole("button", { name: "Send a heart" })).toHaveCount(0);
    await expect(page.getByRole("link", { name: "Write back to Ada" })).toHaveCount(0);
  });
});
