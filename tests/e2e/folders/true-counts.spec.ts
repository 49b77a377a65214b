import { folderRecipientStates, mailboxSuppressions } from "#db/schema";
import { expect, test } from "../fixtures";
import { createFolderRow, signIn, testDb, uniqueEmail } from "../support/accounts";
import { linkIn, waitForMail } from "../support/mail";

/**
 * Issue 47, part 5: a folder card counts who will get the next issue, and
 * after a bounce the sender may ask once whether the recipient would like to
 * keep getting it; at 375 px, with JavaScript and without
 * (docs/decisions/0210-counts-that-are-true.md, docs/decisions/0211-one-way-back-after-a-bounce.md).
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

  // The Save tab, on this folder, counts the same.
  await page.goto(`/save?folder=${family.id}`);
  await expect(
    page.getByText(
      "Next issue of Family news: 1 of 3 will get it: Mum's address bounced, Gran reported spam.",
    ),
  ).toBeVisible();
});

test("after a bounce the sender asks once, and Mum's own yes brings her back", async ({
  page,
  context,
  baseURL,
  login,
}) => {
  const ada = await login({ firstName: "Ada", lastName: "Lovelace" });
  const [mum, dad] = [uniqueEmail("mum"), uniqueEmail("dad")];
  const folder = createFolderRow(ada.id, {
    name: "Family news",
    recipients: [
      { name: "Mum", email: mum },
      { name: "Dad", email: dad },
    ],
  });
  testDb()
    .insert(folderRecipientStates)
    .values({ folderId: folder.id, email: mum, mailbox: mum, status: "bounced", bounceCount: 1 })
    .run();

  await page.goto(`/folders/${folder.id}/recipients`);
  await page
    .getByRole("button", { name: "Ask Mum whether they would like to keep getting it" })
    .click();
  await expect(
    page.getByText(/We asked .* whether they would like to keep getting it/),
  ).toBeVisible();
  const mail = await waitForMail(mum, /Would you like to keep getting "Family news"\?/);

  await context.clearCookies();
  await page.goto(linkIn(mail, "/resubscribe"));
  await page.getByRole("button", { name: "Re-subscribe" }).click();
  await expect(page.getByRole("status")).toContainText("will receive");

  await signIn(context, ada.id, baseURL!, testDb());
  await page.goto("/");
  await expect(page.getByText("2 recipients", { exact: true }).first()).toBeVisible();
});
