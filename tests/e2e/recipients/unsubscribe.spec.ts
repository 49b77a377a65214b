import crypto from "node:crypto";
import { and, eq, inArray } from "drizzle-orm";
import { emailUnsubscribes, folderRecipientStates, folders, resubscribeRefusals } from "#db/schema";
import { expect, test } from "../fixtures";
import { createFolderRow, createUser, signIn, testDb, uniqueEmail } from "../support/accounts";
import { openMoreMenu } from "../support/folder-screen";
import { linkIn, mailsTo, waitForMail } from "../support/mail";

/**
 * The recipient's side (unsubscribe from the e-mail's link, the RFC 8058
 * one-click POST, re-subscribe from the sender's request) and the sender's
 * Recipients dialog. Links are signed here with the server's SESSION_SECRET,
 * exactly as app/modules/recipients/recipient-links.server.ts signs them.
 */
function sign(message: string) {
  return crypto
    .createHmac("sha256", process.env.E2E_SESSION_SECRET!)
    .update(message)
    .digest("base64url");
}

function unsubscribeLink(baseURL: string, folderId: number, email: string, token?: string) {
  const query = new URLSearchParams({
    folder: String(folderId),
    email,
    token: token ?? sign(`unsubscribe:${folderId}:${email.toLowerCase()}`),
  });
  return `${baseURL}/unsubscribe?${query}`;
}

function familyFolder(senderId: number) {
  const mum = uniqueEmail("mum");
  const dad = uniqueEmail("dad");
  const folder = createFolderRow(senderId, {
    name: "Family news",
    recipients: [
      { name: "Mum", email: mum },
      { name: "Dad", email: dad },
    ],
  });
  return { folder, mum, dad };
}

function stateOf(folderId: number, email: string) {
  return testDb()
    .select()
    .from(folderRecipientStates)
    .where(
      and(eq(folderRecipientStates.folderId, folderId), eq(folderRecipientStates.email, email)),
    )
    .get();
}

/** What the send engine's activeRecipients() reads, straight from the tables. */
function activeEmails(folderId: number) {
  const db = testDb();
  const folder = db.select().from(folders).where(eq(folders.id, folderId)).get()!;
  const emails = folder.recipients.map((recipient) => recipient.email);
  const blocked = new Set([
    ...db
      .select({ email: folderRecipientStates.email })
      .from(folderRecipientStates)
      .where(
        and(
          eq(folderRecipientStates.folderId, folderId),
          inArray(folderRecipientStates.status, ["unsubscribed", "bounced"]),
        ),
      )
      .all()
      .map((row) => row.email),
    ...db
      .select({ email: emailUnsubscribes.email })
      .from(emailUnsubscribes)
      .where(inArray(emailUnsubscribes.email, emails))
      .all()
      .map((row) => row.email),
  ]);
  return emails.filter((email) => !blocked.has(email));
}

function isUnsubscribed(folderId: number) {
  return testDb().select().from(folders).where(eq(folders.id, folderId)).get()?.isUnsubscribed;
}

test.describe("unsubscribe and re-subscribe", () => {
  test("a recipient unsubscribes from one folder with a reason", async ({
    page,
    baseURL,
    expectAccessible,
  }) => {
    const sender = await createUser();
    const { folder, mum, dad } = familyFolder(sender.id);

    await page.goto(unsubscribeLink(baseURL!, folder.id, mum));
    await expect(page.getByRole("heading", { level: 1, name: "Unsubscribe" })).toBeVisible();
    await expect(
      page.getByText(
        "Thoughtfully lets people save links, notes and photos and send them to friends and family as one calm e-mail.",
      ),
    ).toBeVisible();
    await expect(page.getByText(`Ada Lovelace sends you "Family news" at ${mum}.`)).toBeVisible();
    await expect(page.getByLabel("Prefer not to say")).toBeChecked();
    await expect(page.getByLabel("Only this folder")).toBeChecked();
    await expect(page.getByRole("link", { name: "Cancel" })).toHaveAttribute("href", "/");
    await expectAccessible();
    expect(stateOf(folder.id, mum)).toBeUndefined();

    await page.getByLabel("The e-mails come too often").check();
    await page.getByRole("button", { name: "Unsubscribe" }).click();
    await expect(page.getByRole("heading", { name: "You're unsubscribed" })).toBeVisible();
    await expect(
      page.getByText(`${mum} will no longer receive "Family news" from Ada Lovelace.`),
    ).toBeVisible();
    await expect(page.getByText(/nothing changes unless you click it/)).toBeVisible();
    await expectAccessible();

    expect(stateOf(folder.id, mum)).toMatchObject({
      status: "unsubscribed",
      unsubscribeReason: "too_frequent",
    });
    expect(activeEmails(folder.id)).toEqual([dad]);
    expect(isUnsubscribed(folder.id)).toBe(false);
    const everything = testDb()
      .select()
      .from(emailUnsubscribes)
      .where(eq(emailUnsubscribes.email, mum))
      .get();
    expect(everything).toBeUndefined();
  });

  test("a recipient leaves everything from Thoughtfully", async ({ page, baseURL }) => {
    const sender = await createUser();
    const { folder, mum, dad } = familyFolder(sender.id);
    const otherSender = await createUser();
    const elsewhere = createFolderRow(otherSender.id, {
      name: "Elsewhere",
      recipients: [{ name: "Mum", email: mum }],
    });

    await page.goto(unsubscribeLink(baseURL!, folder.id, mum));
    await page.getByLabel("Everything from Thoughtfully").check();
    await page.getByRole("button", { name: "Unsubscribe" }).click();
    await expect(page.getByRole("heading", { name: "You're unsubscribed" })).toBeVisible();
    await expect(page.getByText(/will no longer receive any e-mail sent through/)).toBeVisible();

    expect(
      testDb().select().from(emailUnsubscribes).where(eq(emailUnsubscribes.email, mum)).get(),
    ).toMatchObject({ unsubscribeReason: "unknown", folderId: folder.id, userId: sender.id });
    expect(activeEmails(folder.id)).toEqual([dad]);
    expect(activeEmails(elsewhere.id)).toEqual([]);
    expect(isUnsubscribed(elsewhere.id)).toBe(true);
  });

  test("leaving everything under a +tag keeps the whole mailbox out, and its sender sees it", async ({
    page,
    context,
    baseURL,
  }) => {
    const sender = await createUser();
    const { mum } = familyFolder(sender.id);
    const tagged = mum.replace("@", "+family@");
    const folder = createFolderRow(sender.id, {
      name: "Tagged news",
      recipients: [{ name: "Mum", email: tagged }],
    });
    const otherSender = await createUser();
    const elsewhere = createFolderRow(otherSender.id, {
      name: "Elsewhere",
      recipients: [
        { name: "Mum", email: mum },
        { name: "Gran", email: uniqueEmail("gran") },
      ],
    });

    await page.goto(unsubscribeLink(baseURL!, folder.id, tagged));
    await page.getByLabel("Everything from Thoughtfully").check();
    await page.getByRole("button", { name: "Unsubscribe" }).click();
    await expect(page.getByRole("heading", { name: "You're unsubscribed" })).toBeVisible();

    await signIn(context, otherSender.id, baseURL!);
    await page.goto(`/folders/${elsewhere.id}`);
    await expect(page.getByText("1 unsubscribed")).toBeVisible();
    await page.goto(`/folders/${elsewhere.id}/recipients`);
    const mumRow = page.getByRole("dialog").getByRole("listitem").filter({ hasText: mum });
    await expect(mumRow.getByText("Unsubscribed", { exact: true })).toBeVisible();
    await expect(mumRow.getByText("Does not accept mail sent through Thoughtfully")).toBeVisible();
  });

  test("forged, altered or incomplete links show an error and change nothing", async ({
    page,
    request,
    baseURL,
    expectAccessible,
  }) => {
    const sender = await createUser();
    const { folder, mum, dad } = familyFolder(sender.id);
    const genuine = new URL(unsubscribeLink(baseURL!, folder.id, mum));
    const token = genuine.searchParams.get("token")!;
    const forged = [
      unsubscribeLink(baseURL!, folder.id, mum, "forged-token"),
      unsubscribeLink(
        baseURL!,
        folder.id,
        mum,
        `${token.slice(0, -1)}${token.endsWith("A") ? "B" : "A"}`,
      ),
      unsubscribeLink(baseURL!, folder.id, dad, token),
      unsubscribeLink(baseURL!, folder.id + 1000, mum, token),
      `${baseURL}/unsubscribe?folder=${folder.id}&email=${encodeURIComponent(mum)}`,
      `${baseURL}/unsubscribe`,
    ];
    for (const link of forged) {
      const response = await page.goto(link);
      expect(response?.status()).toBe(400);
      await expect(page.getByRole("alert")).toHaveText("Invalid unsubscribe link");
      await expect(page.getByRole("button", { name: "Unsubscribe" })).toHaveCount(0);
    }
    await expectAccessible();
    // A genuine link to a folder that no longer exists says so, and that nothing more will come.
    const gone = await page.goto(unsubscribeLink(baseURL!, folder.id + 1000, mum));
    expect(gone?.status()).toBe(404);
    await expect(page.getByRole("alert")).toHaveText("Unable to load unsubscribe information");
    await expect(page.getByText("its sender deleted it, so you will not receive it")).toBeVisible();
    await expect(page.getByRole("button", { name: "Unsubscribe" })).toHaveCount(0);

    // Posting the form or the one-click body with a forged token does nothing either.
    const formPost = await request.post(forged[0]!, {
      form: { folder: folder.id, email: mum, token: "forged-token", scope: "everything" },
    });
    expect(formPost.status()).toBe(400);
    expect(await formPost.text()).toContain("Invalid unsubscribe link");
    const oneClick = await request.post(forged[1]!, {
      form: { "List-Unsubscribe": "One-Click" },
    });
    expect(oneClick.status()).toBe(400);
    expect(await oneClick.text()).toBe("");

    expect(stateOf(folder.id, mum)).toBeUndefined();
    expect(stateOf(folder.id, dad)).toBeUndefined();
    expect(
      testDb().select().from(emailUnsubscribes).where(eq(emailUnsubscribes.email, mum)).get(),
    ).toBeUndefined();
    expect(activeEmails(folder.id)).toEqual([mum, dad]);
  });

  test("the RFC 8058 one-click POST answers an empty 200 and unsubscribes", async ({
    request,
    baseURL,
  }) => {
    const sender = await createUser();
    const { folder, mum, dad } = familyFolder(sender.id);

    const response = await request.post(unsubscribeLink(baseURL!, folder.id, mum), {
      form: { "List-Unsubscribe": "One-Click" },
    });
    expect(response.status()).toBe(200);
    expect(await response.text()).toBe("");
    expect(stateOf(folder.id, mum)).toMatchObject({
      status: "unsubscribed",
      unsubscribeReason: "unknown",
    });
    expect(activeEmails(folder.id)).toEqual([dad]);
    expect(isUnsubscribed(folder.id)).toBe(false);

    // Mail apps may post twice; the last recipient out marks the folder.
    for (const email of [mum, dad]) {
      const again = await request.post(unsubscribeLink(baseURL!, folder.id, email), {
        form: { "List-Unsubscribe": "One-Click" },
      });
      expect(again.status()).toBe(200);
    }
    expect(activeEmails(folder.id)).toEqual([]);
    expect(isUnsubscribed(folder.id)).toBe(true);
  });

  test("the sender asks a recipient back; only the recipient's click re-subscribes", async ({
    page,
    context,
    request,
    baseURL,
    expectAccessible,
  }) => {
    const sender = await createUser();
    const { folder, mum, dad } = familyFolder(sender.id);
    const oneClick = await request.post(unsubscribeLink(baseURL!, folder.id, mum), {
      form: { "List-Unsubscribe": "One-Click" },
    });
    expect(oneClick.status()).toBe(200);

    await signIn(context, sender.id, baseURL!);
    await page.goto(`/folders/${folder.id}`);
    await expect(page.getByText("1 unsubscribed")).toBeVisible();
    await openMoreMenu(page);
    await page.getByRole("link", { name: "Recipients", exact: true }).click();
    const dialog = page.getByRole("dialog", { name: 'Recipients of "Family news"' });
    await expect(dialog).toBeVisible();
    const mumRow = dialog.getByRole("listitem").filter({ hasText: mum });
    const dadRow = dialog.getByRole("listitem").filter({ hasText: dad });
    await expect(mumRow.getByText("Unsubscribed", { exact: true })).toBeVisible();
    await expect(mumRow.getByText(/Unsubscribed from this folder on /)).toBeVisible();
    // The unsubscribe page promises the sender never learns why.
    await expect(mumRow).not.toContainText(/reason|interested|frequent/i);
    await expect(dadRow.getByText("Active", { exact: true })).toBeVisible();
    await expect(dadRow.getByRole("button")).toHaveCount(0);
    await expectAccessible();

    await mumRow.getByRole("button", { name: "Request re-subscription from Mum" }).click();
    await expect(page.getByRole("status").filter({ hasText: "Request sent" })).toBeVisible();
    await expect(page.getByRole("dialog").getByText(/Re-subscription requested on/)).toBeVisible();

    // A second request within 30 days is refused and sends nothing.
    await page
      .getByRole("dialog")
      .getByRole("button", { name: "Request re-subscription from Mum" })
      .click();
    const refusal = page.getByRole("alert").filter({ hasText: "Request Failed" });
    await expect(refusal).toBeVisible();
    await expect(refusal).toContainText("You can ask once every 30 days");

    const mail = await waitForMail(mum, /would like to keep sharing "Family news" with you/);
    expect(mail.text).toContain("nothing changes");
    const link = linkIn(mail, "/resubscribe");
    await context.clearCookies();

    // Following the link (as a mail scanner does) changes nothing.
    const scanned = await request.get(link);
    expect(scanned.status()).toBe(200);
    expect(await scanned.text()).toContain("Re-subscribe");
    expect(stateOf(folder.id, mum)?.status).toBe("unsubscribed");

    // A scanner that runs the page's scripts changes nothing either: only the click does.
    await page.goto(link);
    await expect(page.getByRole("button", { name: "Re-subscribe" })).toBeVisible();
    await page.waitForLoadState("networkidle");
    await expectAccessible();
    expect(stateOf(folder.id, mum)?.status).toBe("unsubscribed");
    await page.getByRole("button", { name: "Re-subscribe" }).click();
    await expect(
      page.getByRole("heading", { name: "You're back on the list for Family news" }),
    ).toBeVisible();
    await expectAccessible();
    expect(stateOf(folder.id, mum)?.status).toBe("active");
    expect(activeEmails(folder.id)).toEqual([mum, dad]);
    expect(await mailsTo(mum)).toHaveLength(1);
  });

  test("Don't ask me again, from the request e-mail, stops every sender's requests", async ({
    page,
    context,
    request,
    baseURL,
    expectAccessible,
  }) => {
    const sender = await createUser();
    const { folder, mum } = familyFolder(sender.id);
    const otherSender = await createUser();
    const elsewhere = createFolderRow(otherSender.id, {
      name: "Elsewhere",
      recipients: [{ name: "Mum", email: mum }],
    });
    const everything = await request.post(unsubscribeLink(baseURL!, folder.id, mum), {
      form: { scope: "everything" },
    });
    expect(everything.status()).toBe(200);

    const askFromRecipientsDialog = async (folderId: number) => {
      await page.goto(`/folders/${folderId}/recipients`);
      await page
        .getByRole("dialog")
        .getByRole("button", { name: "Request re-subscription from Mum" })
        .click();
    };
    await signIn(context, sender.id, baseURL!);
    await askFromRecipientsDialog(folder.id);
    await expect(page.getByRole("status").filter({ hasText: "Request sent" })).toBeVisible();

    const mail = await waitForMail(mum, /would like to keep sharing "Family news" with you/);
    expect(mail.text).toContain(`Ada Lovelace (${sender.email})`);
    const link = linkIn(mail, "/dont-ask-again");
    await context.clearCookies();
    const refused = () =>
      testDb().select().from(resubscribeRefusals).where(eq(resubscribeRefusals.email, mum)).get();

    // Following the link (as a mail scanner does) changes nothing.
    const scanned = await request.get(link);
    expect(scanned.status()).toBe(200);
    await page.goto(link);
    await expect(page.getByRole("button", { name: "Don't ask me again" })).toBeVisible();
    await page.waitForLoadState("networkidle");
    await expectAccessible();
    expect(refused()).toBeUndefined();

    await page.getByRole("button", { name: "Don't ask me again" }).click();
    await expect(page.getByRole("heading", { name: "We won't ask again" })).toBeVisible();
    await expectAccessible();
    expect(refused()).toBeDefined();

    // Another sender, who never asked before, is refused with a clear message and mails nothing.
    await signIn(context, otherSender.id, baseURL!);
    await askFromRecipientsDialog(elsewhere.id);
    await expect(page.getByRole("alert").filter({ hasText: "Request Failed" })).toContainText(
      `${mum} has asked not to be asked again.`,
    );
    expect(await mailsTo(mum)).toHaveLength(1);
  });

  test("a forged re-subscription link shows an error and changes nothing", async ({
    page,
    baseURL,
  }) => {
    const sender = await createUser();
    const { folder, mum } = familyFolder(sender.id);
    testDb()
      .insert(folderRecipientStates)
      .values({
        folderId: folder.id,
        email: mum,
        mailbox: mum,
        status: "unsubscribed",
        unsubscribedAt: new Date(),
      })
      .run();
    const wrongPurpose = sign(`unsubscribe:${folder.id}:${mum}`);
    for (const query of [
      `email=${encodeURIComponent(mum)}&folder=${folder.id}&token=${wrongPurpose}`,
      `email=${encodeURIComponent(mum)}&folder=${folder.id}`,
      `folder=${folder.id}&token=${sign(`resubscribe:${folder.id}:${mum}`)}`,
    ]) {
      const response = await page.goto(`${baseURL}/resubscribe?${query}`);
      expect(response?.status()).toBe(400);
      await expect(page.getByRole("alert")).toHaveText("Invalid re-subscription link");
      await expect(page.getByRole("button", { name: "Re-subscribe" })).toHaveCount(0);
    }
    expect(stateOf(folder.id, mum)?.status).toBe("unsubscribed");
  });
});
