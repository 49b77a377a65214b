import { expect, test } from "./fixtures";
import { createFolderRow, createUser, signIn, uniqueEmail } from "./support/accounts";
import { createItemRow, itemsOf } from "./support/items";
import { mailsTo, waitForMail } from "./support/mail";

/**
 * The whole loop as people live it: the sender presses Send Now, the
 * recipients get the newsletter through the (loopback) SMTP server, one of
 * them unsubscribes from the link in that e-mail, and the next send skips them.
 */
test("a recipient unsubscribes from the received e-mail and the next send skips them", async ({
  page,
  context,
  baseURL,
}) => {
  const sender = await createUser({ firstName: "Ada", lastName: "Lovelace" });
  const mum = uniqueEmail("mum");
  const dad = uniqueEmail("dad");
  const folder = createFolderRow(sender.id, {
    name: "Sunday letters",
    recipients: [
      { name: "Mum", email: mum },
      { name: "Dad", email: dad },
    ],
  });
  createItemRow(folder.id, { type: "musing", title: "The garden in May", note: "Roses out." });
  await signIn(context, sender.id, baseURL!);

  await page.goto(`/folders/${folder.id}`);
  await page.getByRole("button", { name: "Send Now" }).click();
  await expect(page.getByText("Your folder is on its way (2 messages).")).toBeVisible();
  expect(itemsOf(folder.id).filter((item) => item.sentAt === null)).toEqual([]);

  const letter = await waitForMail(mum, /Sunday letters/);
  expect(letter.html).toContain("The garden in May");
  expect(letter.replyTo?.value[0]?.address).toBe(sender.email);
  const link = /https?:\/\/[^\s"<>\]]+\/u\/[A-Za-z0-9_.-]+/.exec(letter.text ?? "")?.[0];
  expect(link, "the e-mail's unsubscribe link").toBeDefined();

  await context.clearCookies();
  await page.goto(link!);
  await expect(page).toHaveURL(/\/unsubscribe\?folder=/);
  await page.getByLabel(/too often|too frequent/i).check();
  await page.getByRole("button", { name: "Unsubscribe" }).click();
  await expect(page.getByText(/unsubscribed/i).first()).toBeVisible();

  createItemRow(folder.id, { type: "musing", title: "A second letter", note: "More news." });
  await signIn(context, sender.id, baseURL!);
  await page.goto(`/folders/${folder.id}`);
  await page.getByRole("button", { name: "Send Now" }).click();
  await expect(page.getByText("Your folder is on its way (1 message).")).toBeVisible();
  await waitForMail(dad, /Sunday letters/, { count: 2 });
  expect(
    (await mailsTo(mum)).filter((mail) => /Sunday letters/.test(mail.subject ?? "")),
  ).toHaveLength(1);
});
