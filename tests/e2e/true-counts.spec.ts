import { folderRecipientStates, mailboxSuppressions } from "#db/schema";
import { expect, test } from "./fixtures";
import { createFolderRow, testDb, uniqueEmail } from "./support/accounts";

/**
 * Issue 47, part 5: a folder card counts who will get the next issue, at
 * 375 px, with JavaScript and without (docs/decisions/0210-counts-that-are-true.md).
 */
test.use({ viewport: { width: 375, height: 740 } });

test("a folder card says how many of its recipients will get the next issue, and why not the others", async ({
  page,
  login,
}) => {
  const ada = await login();
  const [mum, dad, gran] = [uniqueEmail("mum"), uniqueEmail("dad"), uniqueEmail("gran")];
  const family = createFolderRow(ada.id, {
    name: "Family news",
    recipients: [
      { name: "Mum", email: mum },
      { name: "Dad", email: dad },
      { name: "Gran", email: gran },
    ],
    sortOrder: 0,
  });
  createFolderRow(ada.id, {
    name: "Book club",
    recipients: [{ name: "Dad", email: dad }],
    sortOrder: 1,
  });
  testDb()
    .insert(folderRecipientStates)
    .values({ folderId: family.id, email: mum, mailbox: mum, status: "bounced", bounceCount: 1 })
    .run();

  await page.goto("/");
  const line = (text: string) => page.getByText(text, { exact: true }).first();
  await expect(line("2 of 3 will get it: Mum's address bounced")).toBeVisible();
  await expect(line("1 recipient")).toBeVisible();

  // Gran's complaint, through anyone's mail, leaves her out too.
  testDb()
    .insert(mailboxSuppressions)
    .values({ mailbox: gran, email: gran, reason: "complaint" })
    .run();
  await page.reload();
  await expect(line("1 of 3 will get it: Mum's address bounced, Gran reported spam")).toBeVisible();
});
