import sharp from "sharp";
import { expect, test } from "../fixtures";
import { createFolderRow } from "../support/accounts";
import { itemsOf } from "../support/items";
import { TapCounter } from "../support/taps";

/**
 * The tap counts of docs/taps.md for adding to a folder, on today's screens, at 375 px, with and
 * without JavaScript (the two projects). Nobody types a title: the app fills a link's and a
 * photo's.
 */
test.use({ viewport: { width: 375, height: 740 } });

test.describe("taps to add to a folder on a phone", () => {
  test("a link with a comment", async ({ page, login, javaScriptEnabled }) => {
    const user = await login();
    const folder = createFolderRow(user.id, { name: "For Mum" });
    const address = `${process.env.E2E_PREVIEW_ORIGIN}/plain/slow-mornings`;
    await page.goto(`/folders/${folder.id}`);
    const taps = new TapCounter(page);

    await taps.tap(page.getByRole("link", { name: "Add Link", exact: true }));
    const dialog = page.getByRole("dialog", { name: "Add Link" });
    await taps.type(dialog.getByLabel("Link 1", { exact: true }), address);
    // The app reads the page's title into the sheet, or at save without JavaScript; the comment
    // box is open from the start (docs/decisions/0199-the-app-fills-what-it-knows.md).
    if (javaScriptEnabled) {
      await expect(dialog.getByLabel("Title")).toHaveValue("slow-mornings only");
    }
    await taps.type(dialog.getByRole("textbox", { name: "Comment" }), "For the train");
    await taps.tap(dialog.getByRole("button", { name: "Add", exact: true }));

    await expect(page.getByText("Content added successfully!")).toBeVisible();
    expect(itemsOf(folder.id)).toMatchObject([
      {
        title: "slow-mornings only",
        urls: [address],
        addComment: true,
        commentText: "For the train",
      },
    ]);
    expect(taps.count).toBe(javaScriptEnabled ? 3 : 4);
  });

  test("a photo with a comment", async ({ page, login }) => {
    const user = await login();
    const folder = createFolderRow(user.id, { name: "For Mum" });
    const photo = await sharp({
      create: { width: 60, height: 40, channels: 3, background: "#c84" },
    })
      .jpeg()
      .toBuffer();
    await page.goto(`/folders/${folder.id}`);
    const taps = new TapCounter(page);

    await taps.tap(page.getByRole("link", { name: "Add Photos", exact: true }));
    const dialog = page.getByRole("dialog", { name: "Add Photo" });
    await taps.pickFiles(dialog.getByLabel("Photos"), {
      name: "beach-day.jpg",
      mimeType: "image/jpeg",
      buffer: photo,
    });
    // No title typed: the browser fills it as the photo is chosen, or without JavaScript the
    // server at save (docs/decisions/0248-the-server-fills-a-photos-title-and-keeps-refused-files.md).
    await taps.type(dialog.getByRole("textbox", { name: "Comment" }), "Remember this?");
    await taps.tap(dialog.getByRole("button", { name: "Add", exact: true }));

    await expect(page.getByText("Content added successfully!")).toBeVisible();
    expect(itemsOf(folder.id)).toMatchObject([
      { type: "photo", title: "beach day", addComment: true, commentText: "Remember this?" },
    ]);
    expect(taps.count).toBe(5);
  });
});
