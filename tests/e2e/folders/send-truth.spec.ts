import fs from "node:fs";
import { eq } from "drizzle-orm";
import { contentItems, sendLedger, sendLedgerRecipients } from "#db/schema";
import { expect, test } from "../fixtures";
import { createFolderRow, testDb, uniqueEmail } from "../support/accounts";
import { createItemRow, storedPath, writeStoredFile } from "../support/items";
import { waitForMail } from "../support/mail";

/**
 * Issue 60, items 2 and 7, as the sender sees them, with and without JavaScript: a photo whose
 * stored file is gone stays in the folder with its reason while Send Now sends the rest over
 * SMTP; a send whose copies wait for their retry says how many went and when the rest go, on
 * the folder page and its card, and Send Now waits for it.
 */
const ZONE = "Europe/London";

test("a photo whose file is gone stays in the folder with its reason; the rest goes", async ({
  page,
  login,
  expectAccessible,
}) => {
  const sender = await login({ firstName: "Ada", timeZone: ZONE });
  const mum = uniqueEmail("mum");
  const folder = createFolderRow(sender.id, {
    name: "Family news",
    recipients: [{ name: "Mum", email: mum }],
  });
  const key = writeStoredFile(Buffer.from("not long for this world"));
  createItemRow(folder.id, {
    type: "photo",
    title: "Beach day",
    filePaths: [key],
    thumbnailPaths: [""],
    fileNames: ["beach.jpg"],
    fileSizes: [23],
    mimeTypes: ["image/jpeg"],
    addComment: true,
    commentText: "Remember this?",
    sortOrder: 0,
  });
  createItemRow(folder.id, { type: "musing", title: "Sunday lunch", note: "Roast and pie." });
  // A restore or a lost volume: the item is there, its file is not.
  fs.rmSync(storedPath(key));

  await page.goto(`/folders/${folder.id}`);
  await page.getByRole("link", { name: "Send Now" }).click();
  await page.getByRole("dialog").getByRole("button", { name: "Send Now" }).click();
  await expect(page.getByText("Your folder is on its way (1 message).")).toBeVisible();

  const beach = page.locator("li.item-card", { hasText: "Beach day" });
  await expect(beach.getByText("The photo's file is missing: add it again")).toBeVisible();
  await expect(beach.getByText("Stays in the folder")).toBeVisible();
  await expect(page.getByRole("heading", { name: "Sunday lunch" })).toHaveCount(0);
  await expectAccessible();

  const letter = await waitForMail(mum, /Family news/);
  expect(letter.subject).toContain("1 thing");
  expect(String(letter.html)).toContain("Sunday lunch");
  expect(String(letter.html)).not.toContain("Beach day");
});

/** "00:25" in the sender's zone. */
function clock(date: Date) {
  return new Intl.DateTimeFormat("en-GB", {
    hour: "2-digit",
    minute: "2-digit",
    hourCycle: "h23",
    timeZone: ZONE,
  }).format(date);
}

test("copies waiting for their retry: the folder says how many went and when the rest go", async ({
  page,
  login,
  expectAccessible,
}) => {
  const sender = await login({ timeZone: ZONE });
  const readers = Array.from({ length: 5 }, (_, index) => uniqueEmail(`reader${index}`));
  const folder = createFolderRow(sender.id, {
    name: "Garden",
    recipients: readers.map((email, index) => ({ name: `R${index}`, email })),
  });
  const item = createItemRow(folder.id, { type: "musing", title: "First tomatoes", note: "Red!" });
  // The send as the pass leaves it after a relay's 4xx to two of the five (as in
  // tests/integration/send-truth.test.ts): three sent, two waiting for their retry.
  const retryAt = new Date(Date.now() + 20 * 60_000);
  const database = testDb();
  const ledger = database
    .insert(sendLedger)
    .values({
      folderId: folder.id,
      occurrenceKey: `e2e-${folder.id}`,
      trigger: "schedule",
      status: "sending",
      itemIds: [item.id],
    })
    .returning()
    .get();
  database
    .insert(sendLedgerRecipients)
    .values(
      readers.map((email, index) =>
        index < 3
          ? { ledgerId: ledger.id, email, status: "sent" as const, attempts: 1, sentAt: new Date() }
          : {
              ledgerId: ledger.id,
              email,
              attempts: 1,
              nextAttemptAt: retryAt,
              lastError: "450 4.2.1 Mailbox busy, try again later",
            },
      ),
    )
    .run();

  await page.goto(`/folders/${folder.id}`);
  const line = new RegExp(
    `^3 of 5 sent, the rest retry at (\\w{3} \\d+ \\w{3}, )?${clock(retryAt)}$`,
  );
  await expect(page.getByRole("region", { name: line })).toBeVisible();
  await expect(
    page.getByRole("listitem").filter({ hasText: "Garden" }).getByText(line),
  ).toBeVisible();
  await expect(page.getByRole("button", { name: "Send Now" })).toBeDisabled();
  await expect(page.getByText("Send Now works again once this send is done.")).toBeVisible();
  await expectAccessible();
  // Its Sent view, with no issue in it yet, says the same rather than "nothing sent".
  await page.goto(`/folders/${folder.id}/sent`);
  await expect(page.getByRole("dialog").getByText(line)).toBeVisible();

  // Once every copy has gone the notice goes too.
  database
    .update(sendLedgerRecipients)
    .set({ status: "sent", nextAttemptAt: null })
    .where(eq(sendLedgerRecipients.ledgerId, ledger.id))
    .run();
  database.update(sendLedger).set({ status: "sent" }).where(eq(sendLedger.id, ledger.id)).run();
  database
    .update(contentItems)
    .set({ sentAt: new Date() })
    .where(eq(contentItems.id, item.id))
    .run();
  await page.goto(`/folders/${folder.id}`);
  await expect(page.getByRole("region", { name: line })).toHaveCount(0);
});
