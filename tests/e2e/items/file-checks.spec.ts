import type { Page } from "@playwright/test";
import sharp from "sharp";
import { expect, test } from "../fixtures";
import { createFolderRow, createUser, signIn } from "../support/accounts";
import { createItemRow, itemsOf } from "../support/items";

const MB = 1024 * 1024;

/** A real JPEG (the server checks content, not names). */
async function jpeg(name: string, red: number) {
  const buffer = await sharp({
    create: { width: 32, height: 24, channels: 3, background: { r: red, g: 90, b: 160 } },
  })
    .jpeg()
    .toBuffer();
  return { name, mimeType: "image/jpeg", buffer };
}

function addPhotoDialog(page: Page) {
  return page.getByRole("dialog", { name: "Add Photo" });
}

test.describe("file checks in the browser", () => {
  test.skip(({ javaScriptEnabled }) => !javaScriptEnabled, "the checks run as files are chosen");

  test("wrong types, too many and too large are named; the kept photos are listed and sent", async ({
    page,
    context,
    baseURL,
  }) => {
    const sender = await createUser();
    const folder = createFolderRow(sender.id, { name: "Family news" });
    await signIn(context, sender.id, baseURL!);
    await page.goto(`/folders/${folder.id}/add/photo`);
    const dialog = addPhotoDialog(page);
    const picker = dialog.getByLabel("Photos");
    const chosen = dialog.getByRole("list", { name: "Ready to upload" });

    await picker.setInputFiles([
      await jpeg("beach.jpg", 200),
      { name: "notes.txt", mimeType: "text/plain", buffer: Buffer.from("hello") },
      { name: "report.pdf", mimeType: "application/pdf", buffer: Buffer.from("%PDF-1.4") },
    ]);
    const problems = dialog.getByRole("alert");
    await expect(problems).toContainText("Invalid file types");
    await expect(
      dialog.getByRole("list", { name: "Invalid file types" }).getByRole("listitem"),
    ).toHaveText(["notes.txt", "report.pdf"]);
    await expect(chosen.getByRole("listitem")).toHaveCount(1);
    await expect(chosen).toContainText("beach.jpg");

    await picker.setInputFiles([
      { name: "huge.jpg", mimeType: "image/jpeg", buffer: Buffer.alloc(10 * MB + 1) },
    ]);
    await expect(problems).toHaveText("huge.jpg is too large. Maximum photo size is 10MB.");
    await expect(chosen.getByRole("listitem")).toHaveCount(1);

    await picker.setInputFiles([
      await jpeg("hills.jpg", 40),
      await jpeg("lake.jpg", 90),
      await jpeg("fourth.jpg", 140),
    ]);
    await expect(problems).toHaveText("Photo limit reached");
    await expect(chosen.getByRole("listitem")).toHaveCount(3);
    await expect(dialog.getByText("3 of 3 photos chosen")).toBeVisible();

    await chosen.getByRole("button", { name: "Remove lake.jpg" }).click();
    await expect(chosen.getByRole("listitem")).toHaveCount(2);
    await expect(problems).toHaveCount(0);

    await dialog.getByLabel("Title").fill("Holiday");
    await dialog.getByLabel("Leave a comment").check();
    await dialog.getByRole("textbox", { name: "Comment" }).fill("Our week away");
    await dialog.getByRole("button", { name: "Add", exact: true }).click();

    await expect(page).toHaveURL(new RegExp(`/folders/${folder.id}#item-\\d+$`));
    expect(itemsOf(folder.id).map((item) => item.fileNames)).toEqual([["beach.jpg", "hills.jpg"]]);
  });

  test("a photo picked before the page's JavaScript runs is checked once it does", async ({
    page,
    context,
    baseURL,
  }) => {
    const sender = await createUser();
    const folder = createFolderRow(sender.id, { name: "Family news" });
    await signIn(context, sender.id, baseURL!);
    // Holds the app's scripts back, as a slow phone's network would.
    let releaseScripts = () => {};
    const scriptsReleased = new Promise<void>((resolve) => {
      releaseScripts = resolve;
    });
    await page.route(/\/build\/.+\.js$/, async (route) => {
      await scriptsReleased;
      await route.continue();
    });
    await page.goto(`/folders/${folder.id}/add/photo`, { waitUntil: "commit" });
    await addPhotoDialog(page)
      .getByLabel("Photos")
      .setInputFiles([await jpeg("beach.jpg", 200)]);
    releaseScripts();

    const chosen = addPhotoDialog(page).getByRole("list", { name: "Ready to upload" });
    await expect(chosen).toContainText("beach.jpg");
    await expect(addPhotoDialog(page).getByLabel("Title")).not.toHaveValue("");
  });

  test("the size bar turns amber above 80 % and red above 100 % of the folder", async ({
    page,
    context,
    baseURL,
  }) => {
    const sender = await createUser();
    const nearlyFull = createFolderRow(sender.id, { name: "Nearly full", sortOrder: 0 });
    createItemRow(nearlyFull.id, { type: "file", title: "Scan", fileSizes: [16 * MB] });
    const full = createFolderRow(sender.id, { name: "Full", sortOrder: 1 });
    createItemRow(full.id, { type: "file", title: "Scan", fileSizes: [20 * MB - 100] });
    const roomy = createFolderRow(sender.id, { name: "Roomy", sortOrder: 2 });
    await signIn(context, sender.id, baseURL!);

    const bar = (page: Page) =>
      addPhotoDialog(page).getByRole("meter", { name: "Storage forecast" });
    const cases = [
      { folder: roomy, level: "normal" },
      { folder: nearlyFull, level: "warning" },
      { folder: full, level: "over" },
    ];
    for (const { folder, level } of cases) {
      await page.goto(`/folders/${folder.id}/add/photo`);
      await expect(bar(page)).toHaveCount(0);
      await addPhotoDialog(page)
        .getByLabel("Photos")
        .setInputFiles([await jpeg("beach.jpg", 200)]);
      await expect(bar(page)).toHaveAttribute("data-level", level);
    }
    await expect(addPhotoDialog(page).getByText(/too big to upload here/)).toBeVisible();
  });
});
