import type { Page } from "@playwright/test";
import { expect, test } from "../fixtures";
import { createFolderRow, createUser, signIn, uniqueEmail } from "../support/accounts";
import { runAppScript } from "../support/app-script";
import { createItemRow } from "../support/items";
import { linkIn, mailsTo, waitForMail } from "../support/mail";

/**
 * Issue 37 as people live it, in both projects (JavaScript on and off): the
 * sender presses Send Now, Mum gets the newsletter through the loopback SMTP
 * server, follows the item's own link from that e-mail in a browser with no
 * account, sends a heart and a note; the sender sees both in the Sent
 * archive, and the day's answer mail (the app's own job, run in a process of
 * its own as the scheduler would) reaches the sender once.
 */

/** A fixed-offset zone where it is now about 20:00, past the day's gathering hour (18:00). */
function zoneWhereItIsEvening(now = new Date()) {
  let offset = 20 - now.getUTCHours();
  if (offset > 14) offset -= 24;
  if (offset < -12) offset += 24;
  // IANA's Etc zones count the other way: Etc/GMT-3 is three hours ahead of UTC.
  return offset === 0 ? "UTC" : `Etc/GMT${offset > 0 ? "-" : "+"}${Math.abs(offset)}`;
}

async function sendNow(page: Page) {
  await page.getByRole("link", { name: "Send Now" }).click();
  await page.getByRole("dialog").getByRole("button", { name: "Send Now" }).click();
}

test("a recipient hearts and writes back from the e-mail; the sender sees it and gets one e-mail", async ({
  page,
  context,
  baseURL,
}) => {
  const sender = await createUser({
    firstName: "Ada",
    lastName: "Lovelace",
    timeZone: zoneWhereItIsEvening(),
  });
  const mum = uniqueEmail("mum");
  const folder = createFolderRow(sender.id, {
    name: "Evening letters",
    recipients: [{ name: "Mum", email: mum }],
  });
  createItemRow(folder.id, { type: "musing", title: "The tide came in", note: "All the way." });
  await signIn(context, sender.id, baseURL!);
  await page.goto(`/folders/${folder.id}`);
  await sendNow(page);
  await expect(page.getByText("Your folder is on its way (1 message).")).toBeVisible();

  // Mum, in a browser that knows nobody, follows the link under the item.
  const letter = await waitForMail(mum, /Evening letters/);
  const letterText = letter.text?.replace(/\s+/g, " ");
  expect(letterText).toContain("♥ Send Ada a heart or a note");
  expect(letterText).toContain("Hearts and notes you send go only to Ada.");
  const answerLink = linkIn(letter, "/a/");
  await context.clearCookies();
  await page.goto(answerLink);
  await expect(page.getByRole("heading", { level: 1, name: "Answer Ada" })).toBeVisible();
  await expect(page.getByText("The tide came in")).toBeVisible();
  await page.getByRole("button", { name: "Send a heart" }).click();
  await expect(page.getByRole("button", { name: "Take back the heart" })).toBeVisible();
  await page.getByLabel("Write back to Ada").fill("Lovely <3 & see you Sunday");
  await page.getByRole("button", { name: "Send note" }).click();
  await expect(
    page.getByRole("region", { name: "Your notes to Ada" }).getByRole("listitem"),
  ).toHaveText("Lovely <3 & see you Sunday");

  // The sender: the Save tab counts it, the issue's page shows who said what.
  await signIn(context, sender.id, baseURL!);
  await page.goto("/save");
  const issue = page.getByRole("article").filter({ hasText: "Evening letters" });
  await expect(issue.getByText(/♥ 1 · 1 note/)).toBeVisible();
  await issue.getByRole("link").first().click();
  const answers = page.getByRole("region", { name: "Answers to The tide came in" });
  await expect(answers.getByText("♥ 1 — Mum")).toBeVisible();
  await expect(answers.getByRole("listitem")).toContainText("Lovely <3 & see you Sunday");

  // The day's gathering reaches the sender once, however often the job runs.
  runAppScript("tests/support/gather-answers.ts");
  const gathering = await waitForMail(sender.email, /1 heart/);
  expect(gathering.text).toContain("Lovely <3 & see you Sunday");
  expect(String(gathering.html)).toContain(`mailto:${mum}`);
  expect(String(gathering.html)).not.toContain("<3 &");
  runAppScript("tests/support/gather-answers.ts");
  expect(await mailsTo(sender.email)).toHaveLength(1);
});
