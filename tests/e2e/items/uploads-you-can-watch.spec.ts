import type { Locator, Page } from "@playwright/test";
import sharp from "sharp";
import { expect, test } from "../fixtures";
import { createFolderRow } from "../support/accounts";
import { createItemRows, itemsOf } from "../support/items";
import { expectPictureLoaded } from "../support/pictures";

/**
 * Issue 35, "Uploads you can watch", on a phone: a chosen photo shows itself at once; with
 * JavaScript the upload's bytes are a progress bar that reaches 100 %; a refused file is named
 * in an error summary that takes the focus and is dropped from the choice; the save lands on
 * the new item, the page's `:target`, highlighted.
 */
test.use({ viewport: { width: 375, height: 740 } });

/** A real JPEG of noise, so it is large enough for the upload to take a while. */
async function photo(name: string, size = 600) {
  const noise = Buffer.alloc(size * size * 3);
  for (let index = 0; index < noise.length; index += 1) noise[index] = (index * 7919) % 251;
  const buffer = await sharp(noise, { raw: { width: size, height: size, channels: 3 } })
    .jpeg({ quality: 95 })
    .toBuffer();
  return { name, mimeType: "image/jpeg", buffer };
}

/** Text named like a photo: the browser's check lets it through, the server's refuses it. */
const FAKE_JPEG = {
  name: "fake.jpg",
  mimeType: "image/jpeg",
  buffer: Buffer.from("This is a letter, not a photo.\n"),
};

async function describeWhy(dialog: Locator) {
  await dialog.getByLabel("Leave a comment").check();
  await dialog.getByRole("textbox", { name: "Comment" }).fill("From our walk");
}

/** Every value the upload's progress bar shows, kept across the page load that follows the save. */
async function recordUploadProgress(page: Page) {
  await page.evaluate(() => {
    sessionStorage.setItem("progress", "[]");
    new MutationObserver(() => {
      const bar = document.querySelector('[role="progressbar"][aria-label="Upload progress"]');
      const value = bar?.getAttribute("aria-valuenow");
      if (!value) return;
      const seen = JSON.parse(sessionStorage.getItem("progress") ?? "[]") as number[];
      if (seen.at(-1) !== Number(value)) {
        sessionStorage.setItem("progress", JSON.stringify([...seen, Number(value)]));
      }
    }).observe(document.body, {
      subtree: true,
      childList: true,
      attributes: true,
      attributeFilter: ["aria-valuenow"],
    });
  });
}

async function expectLandedOn(page: Page, folderId: number, title: string) {
  // At 3 Mbit/s a photo takes seconds to go up, more on a busy machine.
  await expect(page).toHaveURL(new RegExp(`/folders/${folderId}#item-\\d+$`), { timeout: 30_000 });
  const [item] = itemsOf(folderId).filter((saved) => saved.title === title);
  expect(page.url()).toMatch(new RegExp(`#item-${item!.id}$`));
  const card = page.locator(`#item-${item!.id}`);
  await expect(card).toBeInViewport();
  expect(await page.evaluate(() => document.querySelector(":target")?.id)).toBe(`item-${item!.id}`);
  // Highlighted: the card the address names looks unlike its neighbours.
  expect(await card.evaluate((element) => getComputedStyle(element).backgroundColor)).toBe(
    "rgb(255, 251, 235)",
  );
  return card;
}

test("a photo shows itself when chosen, its upload shows its progress, and the save lands on it", async ({
  page,
  login,
  javaScriptEnabled,
}) => {
  const user = await login();
  const folder = createFolderRow(user.id, { name: "Family" });
  // Enough items before it that the new one would be off-screen on a phone.
  createItemRows(folder.id, 6);

  await page.goto(`/folders/${folder.id}/add/photo`);
  const dialog = page.getByRole("dialog", { name: "Add Photo" });
  await dialog.getByLabel("Photos").setInputFiles([await photo("hills_at_dawn.jpg", 900)]);
  // The app knows a name for it: with JavaScript an empty title takes the file's.
  if (javaScriptEnabled) await expect(dialog.getByLabel("Title")).toHaveValue("hills at dawn");
  await dialog.getByLabel("Title").fill("The hills");
  await describeWhy(dialog);
  await expect(dialog.getByText(/Your photos upload when you press Add/)).toBeVisible();

  if (javaScriptEnabled) {
    const thumbnail = dialog.getByRole("img", { name: "Preview of hills_at_dawn.jpg" });
    await expectPictureLoaded(thumbnail, 900);
    await expect(dialog.getByRole("meter", { name: "Storage forecast" })).toHaveAttribute(
      "aria-valuetext",
      /^Forecast: /,
    );
    await recordUploadProgress(page);
    // The phone: 3 Mbit/s up, so the bytes are seen on their way.
    const devtools = await page.context().newCDPSession(page);
    await devtools.send("Network.enable");
    await devtools.send("Network.emulateNetworkConditions", {
      offline: false,
      latency: 20,
      downloadThroughput: -1,
      uploadThroughput: 3_000_000 / 8,
    });
  }
  await dialog.getByRole("button", { name: "Add", exact: true }).click();

  const card = await expectLandedOn(page, folder.id, "The hills");
  // The saved photo, as the list shows it.
  await expect(card.getByRole("img")).toHaveCount(1);
  if (javaScriptEnabled) {
    const seen = JSON.parse(
      (await page.evaluate(() => sessionStorage.getItem("progress"))) ?? "[]",
    ) as number[];
    expect(seen.at(-1)).toBe(100);
    expect(seen.filter((percent) => percent > 0 && percent < 100).length).toBeGreaterThan(2);
    expect(seen).toEqual([...seen].sort((a, b) => a - b));
  }
});

test("a file the server refuses is named in an error summary that takes the focus, and dropped", async ({
  page,
  login,
  javaScriptEnabled,
}) => {
  const user = await login();
  const folder = createFolderRow(user.id, { name: "Family" });
  await page.goto(`/folders/${folder.id}/add/photo`);
  const dialog = page.getByRole("dialog", { name: "Add Photo" });
  await dialog.getByLabel("Title").fill("Beach day");
  await dialog.getByLabel("Photos").setInputFiles([await photo("beach.jpg"), FAKE_JPEG]);
  await describeWhy(dialog);
  await dialog.getByRole("button", { name: "Add", exact: true }).click();

  const summary = dialog.getByRole("alert").filter({ hasText: "There is a problem" });
  await expect(summary).toBeFocused();
  const refusal = summary.getByRole("link", { name: /"fake\.jpg" is not an allowed photo type/ });
  await expect(refusal).toHaveAttribute("href", "#item-photo-files");
  await expect(dialog.getByRole("list", { name: "Not uploaded" })).toContainText("fake.jpg");
  await expect(dialog.getByLabel("Title")).toHaveValue("Beach day");
  expect(itemsOf(folder.id)).toEqual([]);

  if (javaScriptEnabled) {
    // The comment came after the refused file, unread by the server: still counted as it stands.
    await expect(dialog.getByRole("textbox", { name: "Comment" })).toHaveValue("From our walk");
    await expect(dialog.getByText("13/1000")).toBeVisible();
    // Dropped from the choice: what is left is sent as it is.
    await expect(dialog.getByRole("list", { name: "Ready to upload" })).toHaveText(/beach\.jpg/);
    await expect(dialog.getByRole("list", { name: "Ready to upload" })).not.toContainText(
      "fake.jpg",
    );
    expect(
      await dialog.getByLabel("Photos").evaluate((input: HTMLInputElement) => input.files?.length),
    ).toBe(1);
  } else {
    // The browser forgets a choice when the page is answered: choose again.
    await dialog.getByLabel("Photos").setInputFiles([await photo("beach.jpg")]);
    await describeWhy(dialog);
  }
  await dialog.getByRole("button", { name: "Add", exact: true }).click();
  await expectLandedOn(page, folder.id, "Beach day");
  expect(itemsOf(folder.id).map((item) => item.fileNames)).toEqual([["beach.jpg"]]);
});

test("a musing saved from its dialog lands on its card, highlighted, after the items before it", async ({
  page,
  login,
}) => {
  const user = await login();
  const folder = createFolderRow(user.id, { name: "Family" });
  createItemRows(folder.id, 6);
  await page.goto(`/folders/${folder.id}/add/musing`);
  const dialog = page.getByRole("dialog", { name: "Add Musing" });
  await dialog.getByLabel("Title").fill("Thinking of you");
  await dialog.getByLabel("Note").fill("The garden is in bloom.");
  await dialog.getByRole("button", { name: "Add", exact: true }).click();

  await expect(page).toHaveURL(new RegExp(`/folders/${folder.id}#item-\\d+$`));
  const [item] = itemsOf(folder.id).filter((saved) => saved.title === "Thinking of you");
  const card = page.locator(`#item-${item!.id}`);
  await expect(card).toBeInViewport();
  await expect(card).toHaveCSS("background-color", "rgb(255, 251, 235)");
});
