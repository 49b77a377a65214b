import fs from "node:fs";
import { unzipSync } from "fflate";
import { expect, test } from "../fixtures";
import { confirmWithPassword, createFolderRow, createUser, findUser } from "../support/accounts";
import { createItemRow, writeStoredFile } from "../support/items";
import { atPhoneAndDesktop } from "../support/viewports";

/**
 * Issue 36, item 6: deleting the account asks for the password and offers
 * "Download my data" first, a ZIP of every folder, item and file
 * (docs/decisions/0155-download-my-data.md); issue 44: the download asks who
 * you are too (docs/decisions/0175-download-my-data-asks-who-you-are.md).
 */
atPhoneAndDesktop("leaving with your data", () => {
  test("the export ZIP holds every folder, item and file, and only the owner's", async ({
    page,
    login,
    baseURL,
  }) => {
    const user = await login();
    const family = createFolderRow(user.id, { name: "Family" });
    const work = createFolderRow(user.id, { name: "Work" });
    const photo = Buffer.from(Array.from({ length: 5000 }, (_, index) => index % 256));
    const document = Buffer.from("minutes of the meeting");
    createItemRow(family.id, { title: "A thought", note: "Miss you" });
    createItemRow(family.id, {
      type: "photo",
      title: "Beach day",
      filePaths: [writeStoredFile(photo)],
      fileNames: ["beach.jpg"],
      fileSizes: [photo.length],
      mimeTypes: ["image/jpeg"],
    });
    createItemRow(work.id, {
      type: "file",
      title: "Minutes",
      filePaths: [writeStoredFile(document)],
      fileNames: ["minutes.txt"],
      fileSizes: [document.length],
      mimeTypes: ["text/plain"],
    });
    const stranger = await createUser();
    createItemRow(createFolderRow(stranger.id, { name: "Theirs" }).id, { title: "Not yours" });

    await page.goto("/profile/delete");
    await confirmWithPassword(page);
    const dialog = page.getByRole("dialog", { name: "Are you absolutely sure?" });
    const downloading = page.waitForEvent("download");
    await dialog.getByRole("link", { name: "Download my data" }).click();
    const download = await downloading;
    expect(download.suggestedFilename()).toMatch(/^thoughtfully-data-\d{4}-\d{2}-\d{2}\.zip$/);
    const zip = unzipSync(fs.readFileSync((await download.path())!));

    const folders = JSON.parse(Buffer.from(zip["folders.json"]!).toString());
    const items = JSON.parse(Buffer.from(zip["items.json"]!).toString());
    expect(folders.map((folder: { name: string }) => folder.name).sort()).toEqual([
      "Family",
      "Work",
    ]);
    expect(items.map((item: { title: string }) => item.title).sort()).toEqual([
      "A thought",
      "Beach day",
      "Minutes",
    ]);
    const fileOf = (title: string) =>
      items.find((item: { title: string }) => item.title === title).files[0].path;
    expect(Buffer.from(zip[fileOf("Beach day")]!)).toEqual(photo);
    expect(Buffer.from(zip[fileOf("Minutes")]!)).toEqual(document);

    // Still on the page that offered it; the account is untouched.
    await expect(dialog).toBeVisible();
    expect(findUser(user.email)).toBeDefined();

    // Someone signed out gets the log-in page, not a ZIP.
    const anonymous = await page.context().browser()!.newContext({ baseURL });
    try {
      const response = await anonymous.request.get("/profile/export", { maxRedirects: 0 });
      expect(response.status()).toBe(302);
      expect(response.headers().location).toMatch(/^\/login\?/);
    } finally {
      await anonymous.close();
    }
  });

  test("deleting is refused without the password and works with it", async ({
    page,
    login,
    baseURL,
  }) => {
    const user = await login();
    await page.goto("/profile");
    const csrf = await page.locator('input[name="csrf"]').first().inputValue();
    const refused = await page.request.post("/profile/delete", {
      form: { csrf },
      headers: { Origin: new URL(baseURL!).origin },
      maxRedirects: 0,
    });
    expect(refused.status()).toBe(302);
    expect(refused.headers().location).toMatch(/^\/reauthenticate\?/);
    expect(findUser(user.email)).toBeDefined();

    await page.getByRole("link", { name: "Delete Account" }).click();
    await expect(page.getByRole("heading", { name: "Confirm it's you" })).toBeVisible();
    await page.getByLabel("Password", { exact: true }).fill("not the password");
    await page.getByRole("button", { name: "Confirm with password" }).click();
    await expect(page.getByText("That password is not right.")).toBeVisible();
    expect(findUser(user.email)).toBeDefined();

    await confirmWithPassword(page);
    const dialog = page.getByRole("dialog", { name: "Are you absolutely sure?" });
    await expect(dialog.getByRole("link", { name: "Download my data" })).toBeVisible();
    await dialog.getByRole("button", { name: "Yes, delete my account" }).click();
    await expect(page.getByText("Account deleted")).toBeVisible();
    expect(findUser(user.email)).toBeUndefined();
  });

  test("without a recent proof, Download my data asks who you are, then downloads", async ({
    page,
    login,
  }) => {
    const user = await login();
    createFolderRow(user.id, { name: "Family" });
    await page.goto("/profile");
    await page.getByRole("link", { name: "Download my data" }).click();
    await expect(page).toHaveURL(/\/reauthenticate\?redirectTo=%2Fprofile%2Fdownload$/);
    const refused = await page.request.get("/profile/export", { maxRedirects: 0 });
    expect(refused.status()).toBe(302);
    expect(refused.headers().location).toMatch(/^\/reauthenticate\?/);

    // Confirmed, the download starts by itself over Profile Settings.
    const downloading = page.waitForEvent("download");
    await confirmWithPassword(page);
    const download = await downloading;
    expect(download.suggestedFilename()).toMatch(/^thoughtfully-data-\d{4}-\d{2}-\d{2}\.zip$/);
    const zip = unzipSync(fs.readFileSync((await download.path())!));
    const folders = JSON.parse(Buffer.from(zip["folders.json"]!).toString());
    expect(folders.map((folder: { name: string }) => folder.name)).toEqual(["Family"]);
    const dialog = page.getByRole("dialog", { name: "Download my data" });
    await expect(dialog.getByRole("status")).toContainText("Your download has started");

    // Within the proof's ten minutes, the profile's link downloads at once.
    await dialog.getByRole("link", { name: "Done" }).click();
    await expect(dialog).toHaveCount(0);
    const again = page.waitForEvent("download");
    await page.getByRole("link", { name: "Download my data" }).click();
    expect((await again).suggestedFilename()).toMatch(/\.zip$/);
    await expect(page).toHaveURL(/\/profile$/);
  });

  test("a few exports an hour, then a message instead of a ZIP", async ({ page, login }) => {
    await login();
    await page.goto("/profile/delete");
    await confirmWithPassword(page);
    await expect(page.getByRole("dialog", { name: "Are you absolutely sure?" })).toBeVisible();
    for (let attempt = 0; attempt < 3; attempt++) {
      const response = await page.request.get("/profile/export", { maxRedirects: 0 });
      expect(response.headers()["content-type"]).toBe("application/zip");
    }
    await page.goto("/profile/export");
    await expect(
      page.getByText("You have downloaded your data several times this hour."),
    ).toBeVisible();
  });
});
