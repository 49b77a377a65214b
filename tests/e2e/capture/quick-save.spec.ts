import { expect, test } from "../fixtures";
import { createFolderRow } from "../support/accounts";
import { createItemRow, itemsOf } from "../support/items";
import { waitForMail } from "../support/mail";

/**
 * A quick save keeps its note for later
 * (docs/decisions/0134-quick-saves-wait-for-a-note.md): a link shared with
 * only its address is saved with its page's title, marked "Needs a note",
 * held back from Send Now (which says so), and sent once it has a note.
 */
test.describe("a link shared with only its address", () => {
  test("is kept, needs a note, waits out a send, and goes out with its note", async ({
    page,
    login,
    expectAccessible,
  }) => {
    const user = await login();
    const mum = `mum-${user.id}@example.com`;
    const folder = createFolderRow(user.id, {
      name: "For Mum",
      recipients: [{ name: "Mum", email: mum }],
    });
    createItemRow(folder.id, { type: "musing", title: "Thinking of you", note: "Soon!" });
    await page.setViewportSize({ width: 375, height: 740 });

    // The share sheet sends the address alone; the page's own title is fetched at save.
    const shared = `${process.env.E2E_PREVIEW_ORIGIN}/plain/kites`;
    await page.goto(`/add?${new URLSearchParams({ url: shared })}`);
    await expect(
      page
        .getByRole("article", { name: "Captured from your browser" })
        .getByText("(none: the page's own is used)"),
    ).toBeVisible();
    await page.getByRole("link", { name: "Add to For Mum" }).click();
    const dialog = page.getByRole("dialog", { name: "Add Link to For Mum" });
    await expect(dialog.getByLabel("Title")).toHaveValue("");
    await dialog.getByRole("button", { name: "Add", exact: true }).click();
    await expect(page.getByText("Content captured from browser!")).toBeVisible();
    await expect(page).toHaveURL(new RegExp(`/folders/${folder.id}#item-\\d+$`));
    expect(itemsOf(folder.id)).toMatchObject([
      { type: "musing" },
      { type: "link", title: "kites only", urls: [shared], commentText: null, questionText: null },
    ]);
    const card = page.locator(".item-card", { hasText: "kites only" });
    await expect(card.getByText("Needs a note", { exact: true })).toBeVisible();
    await expect(
      page.locator(".item-card", { hasText: "Thinking of you" }).getByText("Needs a note"),
    ).toHaveCount(0);
    await expectAccessible();

    // The preview and Send Now's question say what waits; the send leaves it in the folder.
    await page.goto(`/folders/${folder.id}/preview`);
    const preview = page.getByRole("dialog", { name: "Email Preview" });
    const waits = preview.getByRole("region", { name: /1 item waits for a note/ });
    await expect(waits.getByText("kites only")).toBeVisible();
    expect(await preview.locator("iframe").getAttribute("srcdoc")).not.toContain("kites only");
    await preview.getByRole("link", { name: "Send Now" }).click();
    const question = page.getByRole("dialog", { name: "Send 1 item to Mum now?" });
    await expect(
      question.getByRole("region", { name: /1 item waits for a note/ }).getByText("kites only"),
    ).toBeVisible();
    await question.getByRole("button", { name: "Send Now" }).click();
    await expect(page.getByText("Your folder is on its way")).toBeVisible();
    const first = await waitForMail(mum, /For Mum/);
    expect(first.text).toContain("Thinking of you");
    expect(first.text).not.toContain("kites only");
    expect(itemsOf(folder.id).map((item) => [item.title, item.sentAt === null])).toEqual([
      ["Thinking of you", false],
      ["kites only", true],
    ]);
    await expect(card.getByText("Needs a note", { exact: true })).toBeVisible();

    // With its note, it goes out with the next send.
    await card.getByRole("link", { name: "Edit kites only" }).click();
    const edit = page.getByRole("dialog", { name: "Edit Link" });
    await edit.getByLabel("Leave a comment").check();
    await edit.getByRole("textbox", { name: "Comment" }).fill("For your kite club");
    await edit.getByRole("button", { name: "Save", exact: true }).click();
    await expect(edit).toBeHidden();
    await expect(card.getByText("Needs a note", { exact: true })).toHaveCount(0);
    await page.goto(`/folders/${folder.id}/confirm-send`);
    await page
      .getByRole("dialog", { name: "Send 1 item to Mum now?" })
      .getByRole("button", { name: "Send Now" })
      .click();
    await expect(page.getByText("Your folder is on its way")).toBeVisible();
    const second = await waitForMail(mum, /For Mum/, { count: 2 });
    expect(second.text).toContain("kites only");
    expect(second.text).toContain("For your kite club");
  });

  test("when every item waits, Send Now says so and sends nothing", async ({ page, login }) => {
    const user = await login();
    const folder = createFolderRow(user.id, {
      name: "Later",
      recipients: [{ name: "Dad", email: `dad-${user.id}@example.com` }],
    });
    createItemRow(folder.id, { type: "link", title: "Read later", urls: ["https://a.example/"] });
    await page.setViewportSize({ width: 375, height: 740 });
    await page.goto(`/folders/${folder.id}/confirm-send`);
    const dialog = page.getByRole("dialog", { name: "This folder cannot be sent now" });
    await expect(dialog.getByText("Every item here needs a note first")).toBeVisible();
    await expect(dialog.getByRole("button", { name: "Send Now" })).toHaveCount(0);
    await page.goto(`/folders/${folder.id}/preview`);
    const preview = page.getByRole("dialog", { name: "Email Preview" });
    await expect(preview.getByText("Nothing would be sent now")).toBeVisible();
    await expect(preview.getByRole("region", { name: /1 item waits/ })).toContainText("Read later");
  });
});
