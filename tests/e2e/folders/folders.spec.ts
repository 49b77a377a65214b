import { expect, test } from "../fixtures";
import { createFolderRow, createUser, foldersOf } from "../support/accounts";
import { whileDatabaseRefuses } from "../support/database-faults";
import { openMoreMenu } from "../support/folder-screen";
import { createItemRow, itemsOf } from "../support/items";
import { atPhoneAndDesktop } from "../support/viewports";

const MB = 1024 * 1024;

test.describe("folders", () => {
  test("creates a folder with two recipients after fixing bad input", async ({
    login,
    page,
    expectAccessible,
  }) => {
    const user = await login();
    await page.goto("/");
    await expect(page.getByText("Create a folder to start saving content.")).toBeVisible();
    await expectAccessible();
    await page.getByRole("link", { name: "Create Folder" }).click();
    const dialog = page.getByRole("dialog", { name: "Folder Details" });
    await expect(dialog).toBeVisible();
    await expect(dialog.getByText("Max characters: 30")).toBeVisible();
    await expect(dialog.getByRole("button", { name: /Remove recipient/ })).toHaveCount(0);
    await expectAccessible();

    await dialog.getByLabel("Recipient 1 name").fill("Mum");
    await dialog.getByLabel("Recipient 1 email").fill("mum-at-home");
    await dialog.getByLabel("Add a personal sign-off").check();
    await dialog.getByRole("button", { name: "Save" }).click();
    await expect(dialog.getByText("Please enter a folder name")).toBeVisible();
    await expect(dialog.getByText("Please enter a valid email address for Mum")).toBeVisible();
    await expect(
      dialog.getByText("Please enter a personal sign-off or uncheck the option"),
    ).toBeVisible();
    await expect(dialog.getByLabel("Recipient 1 name")).toHaveValue("Mum");
    await expect(dialog.getByLabel("Recipient 1 email")).toHaveValue("mum-at-home");

    await dialog.getByLabel("Folder name").fill("Family");
    await dialog.getByLabel("Recipient 1 email").fill("mum@example.com");
    await dialog.getByRole("button", { name: "Add recipient" }).click();
    await expect(dialog.getByLabel("Recipient 2 name")).toBeVisible();
    await expect(dialog.getByLabel("Recipient 1 email")).toHaveValue("mum@example.com");
    await dialog.getByLabel("Recipient 2 name").fill("Dad");
    // Mum's address spelled another way is still Mum's mailbox: refused, what was typed kept.
    await dialog.getByLabel("Recipient 2 email").fill("Mum+news@example.com");
    // At five rows the button gives way to the limit, said where it was.
    for (const row of [3, 4, 5]) {
      await dialog.getByRole("button", { name: "Add recipient" }).click();
      await expect(dialog.getByLabel(`Recipient ${row} name`)).toBeVisible();
    }
    await expect(dialog.getByRole("button", { name: "Add recipient" })).toHaveCount(0);
    await expect(dialog.getByText("Maximum of 5 recipients reached")).toBeVisible();
    for (const row of [5, 4, 3]) {
      await dialog.getByRole("button", { name: `Remove recipient ${row}` }).click();
    }
    await expect(dialog.getByLabel("Recipient 3 name")).toHaveCount(0);
    await expect(dialog.getByText("Maximum of 5 recipients reached")).toHaveCount(0);
    await dialog.getByRole("textbox", { name: "Personal sign-off" }).fill("Love, Ada");
    await dialog.getByLabel("Frequency").selectOption("monthly");
    await dialog.getByLabel(/Day of the month/).selectOption("31");
    await dialog.getByRole("button", { name: "Save" }).click();
    await expect(dialog.getByText("Dad has the same email address as Mum")).toBeVisible();
    await expect(dialog.getByLabel("Recipient 2 email")).toHaveValue("Mum+news@example.com");
    await dialog.getByLabel("Recipient 2 email").fill("dad@example.com");
    await dialog.getByRole("button", { name: "Save" }).click();

    await expect(page.getByText("Folder created successfully!")).toBeVisible();
    await expect(page.getByRole("heading", { level: 2, name: "Family" })).toBeVisible();
    await expect(page.getByText("2 recipients").first()).toBeVisible();
    const [folder] = foldersOf(user.id);
    expect(folder?.recipients).toEqual([
      { name: "Mum", email: "mum@example.com" },
      { name: "Dad", email: "dad@example.com" },
    ]);
    expect([folder?.frequency, folder?.dayOfMonth, folder?.personalSignoff]).toEqual([
      "monthly",
      31,
      "Love, Ada",
    ]);
    expect(folder?.nextSendAt?.getTime()).toBeGreaterThan(Date.now());
    await expectAccessible();
  });

  test("edits, pauses, resumes, reorders and deletes", async ({ page, login }) => {
    const user = await login();
    const first = createFolderRow(user.id, { name: "First", sortOrder: 0 });
    createFolderRow(user.id, { name: "Second", sortOrder: 1 });

    await page.goto(`/folders/${first.id}`);
    await openMoreMenu(page);
    await page.getByRole("link", { name: "Folder Settings" }).click();
    const dialog = page.getByRole("dialog", { name: "Folder Details" });
    await expect(dialog.getByLabel("Folder name")).toHaveValue("First");
    await dialog.getByLabel("Folder name").fill("Renamed");
    await dialog.getByRole("button", { name: "Save" }).click();
    await expect(page.getByText("Folder settings updated successfully!")).toBeVisible();
    await expect(page.getByRole("heading", { level: 2, name: "Renamed" })).toBeVisible();

    await openMoreMenu(page);
    await page.getByRole("button", { name: "Pause Delivery" }).click();
    await expect(page.getByText("Delivery paused")).toBeVisible();
    expect(foldersOf(user.id)[0]?.isPaused).toBe(true);
    await openMoreMenu(page);
    await page.getByRole("button", { name: "Resume Delivery" }).click();
    await expect(page.getByText("Delivery resumed")).toBeVisible();
    expect(foldersOf(user.id)[0]?.isPaused).toBe(false);

    await expect(page.getByRole("button", { name: "Move Renamed up" })).toBeDisabled();
    await page.getByRole("button", { name: "Move Renamed down" }).click();
    await expect(page.getByText("Folder moved")).toBeVisible();
    expect(foldersOf(user.id).map((folder) => folder.name)).toEqual(["Second", "Renamed"]);
    await expect(page.getByRole("button", { name: "Move Renamed down" })).toBeDisabled();

    await openMoreMenu(page);
    await page.getByRole("link", { name: "Delete Folder" }).click();
    const confirm = page.getByRole("dialog");
    await expect(
      confirm.getByText(
        "Are you sure you want to delete this folder? All of the data and links will be deleted.",
      ),
    ).toBeVisible();
    await confirm.getByRole("link", { name: "Back" }).click();
    await expect(page.getByRole("dialog")).toHaveCount(0);
    await openMoreMenu(page);
    await page.getByRole("link", { name: "Delete Folder" }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Delete Folder" }).click();
    await expect(page.getByText("Folder deleted")).toBeVisible();
    expect(foldersOf(user.id).map((folder) => folder.name)).toEqual(["Second"]);
  });

  test("when the database refuses, the spec's failure messages show and nothing is lost", async ({
    page,
    login,
  }) => {
    const user = await login();
    const first = createFolderRow(user.id, { name: "First", sortOrder: 0 });
    createFolderRow(user.id, { name: "Second", sortOrder: 1 });
    createItemRow(first.id, { title: "Tea party", sortOrder: 0 });
    createItemRow(first.id, { title: "Garden", sortOrder: 1 });
    const refused = [
      `INSERT ON folders WHEN NEW.user_id = ${user.id}`,
      `UPDATE OF sort_order ON folders WHEN NEW.user_id = ${user.id}`,
      `DELETE ON folders WHEN OLD.user_id = ${user.id}`,
      `UPDATE OF sort_order ON content_items WHEN NEW.folder_id = ${first.id}`,
      `DELETE ON content_items WHEN OLD.folder_id = ${first.id}`,
    ];
    await whileDatabaseRefuses(refused, async () => {
      await page.goto("/folders/new");
      const dialog = page.getByRole("dialog", { name: "Folder Details" });
      await dialog.getByLabel("Folder name").fill("Holiday plans");
      await dialog.getByLabel("Recipient 1 name").fill("Mum");
      await dialog.getByLabel("Recipient 1 email").fill("mum@example.com");
      await dialog.getByRole("button", { name: "Save" }).click();
      await expect(page.getByText("Failed to create folder")).toBeVisible();
      await expect(dialog.getByLabel("Folder name")).toHaveValue("Holiday plans");
      await expect(dialog.getByLabel("Recipient 1 email")).toHaveValue("mum@example.com");

      await page.goto(`/folders/${first.id}`);
      await page.getByRole("button", { name: "Move First down" }).click();
      await expect(page.getByText("Failed to reorder folder")).toBeVisible();

      await page.getByRole("button", { name: "Move Tea party down" }).click();
      await expect(page.getByText("Failed to reorder item")).toBeVisible();
      await page.getByRole("button", { name: "Delete Tea party" }).click();
      await expect(page.getByText("Failed to delete item")).toBeVisible();
      expect(itemsOf(first.id).map((item) => item.title)).toEqual(["Tea party", "Garden"]);

      await openMoreMenu(page);
      await page.getByRole("link", { name: "Delete Folder" }).click();
      await page.getByRole("dialog").getByRole("button", { name: "Delete Folder" }).click();
      await expect(page.getByText("Failed to delete folder")).toBeVisible();
      await expect(page).toHaveURL(`/folders/${first.id}`);
      expect(foldersOf(user.id).map((folder) => folder.name)).toEqual(["First", "Second"]);
    });
  });

  test("?folder=ID opens that folder at its own address", async ({ page, login }) => {
    const user = await login();
    createFolderRow(user.id, { name: "One", sortOrder: 0 });
    const two = createFolderRow(user.id, { name: "Two", sortOrder: 1 });
    await page.goto(`/?folder=${two.id}`);
    await expect(page).toHaveURL(new RegExp(`/folders/${two.id}$`));
    await expect(page.getByRole("heading", { level: 2, name: "Two" })).toBeVisible();
  });

  test("another user's folder answers 404 everywhere and changes nothing", async ({
    login,
    page,
  }) => {
    const owner = await createUser();
    const theirs = createFolderRow(owner.id, { name: "Private" });
    await login();
    for (const path of ["", "/edit", "/delete"]) {
      const response = await page.goto(`/folders/${theirs.id}${path}`);
      expect(response?.status()).toBe(404);
    }
    await page.goto("/");
    const csrf = await page.locator('input[name="csrf"]').first().inputValue();
    for (const [path, form] of [
      ["", { intent: "toggle-pause" }],
      ["", { intent: "move-down" }],
      ["/edit", { name: "Hijacked", "recipients[0].name": "X", "recipients[0].email": "x@x.io" }],
      ["/delete", {}],
    ] as const) {
      const response = await page.request.post(`/folders/${theirs.id}${path}`, {
        form: { csrf, ...form },
        maxRedirects: 0,
      });
      expect(response.status()).toBe(404);
    }
    const [unchanged] = foldersOf(owner.id);
    expect([unchanged?.name, unchanged?.isPaused]).toEqual(["Private", false]);
  });
});

atPhoneAndDesktop("a folder's dead ends offer their way out", () => {
  test("a folder paused for storage cannot be resumed until it fits", async ({ page, login }) => {
    const user = await login();
    const folder = createFolderRow(user.id, {
      name: "Too full",
      isPaused: true,
      pauseReason: "storage_exceeded",
      recipients: [{ name: "Nan", email: "nan@icloud.com" }],
    });
    // 12 MB of photos against the 10 MB an iCloud recipient can receive.
    createItemRow(folder.id, { type: "photo", title: "Big photos", fileSizes: [6 * MB, 6 * MB] });
    await page.goto(`/folders/${folder.id}`);
    await expect(page.getByText("Folder Auto-Paused")).toBeVisible();
    await openMoreMenu(page);
    await page.getByRole("button", { name: "Resume Delivery" }).click();
    await expect(page.getByText("Failed to update folder status")).toBeVisible();
    // The advice names only what works: Send Now stays disabled while the folder is paused.
    await expect(
      page.getByText(
        "This folder is paused because it is over its storage limit. Remove files until it fits: delivery then resumes by itself.",
      ),
    ).toBeVisible();
    await expect(page.getByRole("button", { name: "Send Now" })).toBeDisabled();
    expect(foldersOf(user.id)[0]).toMatchObject({
      isPaused: true,
      pauseReason: "storage_exceeded",
    });
  });

  test("at the folder limit New offers Upgrade and Invite in place, and the server refuses", async ({
    page,
    login,
  }) => {
    const user = await login();
    for (let index = 0; index < 5; index += 1) {
      createFolderRow(user.id, { name: `Folder ${index + 1}`, sortOrder: index });
    }
    await page.goto("/");
    await page.getByRole("link", { name: "New", exact: true }).click();
    const dialog = page.getByRole("dialog", { name: "Folder Limit Reached" });
    await expect(
      dialog.getByText(
        "Hey there! You've reached your maximum of 5 unique folders. Have you tried adding multiple recipients to a single folder yet?",
      ),
    ).toBeVisible();
    await expect(dialog.getByLabel("Folder name")).toHaveCount(0);
    await expect(dialog.getByRole("link", { name: "Invite friends" })).toHaveAttribute(
      "href",
      "/invite",
    );
    await dialog.getByRole("link", { name: "Upgrade to Premium" }).click();
    await expect(page).toHaveURL("/upgrade");
    await expect(page.getByRole("dialog", { name: "Upgrade to Premium" })).toBeVisible();

    const csrf = await page.locator('input[name="csrf"]').first().inputValue();
    await page.request.post("/folders/new", {
      form: {
        csrf,
        name: "Sixth",
        "recipients[0].name": "A",
        "recipients[0].email": "a@example.com",
      },
    });
    expect(foldersOf(user.id)).toHaveLength(5);
  });

  test("a folder-limit refusal from the server opens the upgrade dialog", async ({
    page,
    login,
  }) => {
    const user = await login();
    for (let index = 0; index < 4; index += 1) {
      createFolderRow(user.id, { name: `Folder ${index + 1}`, sortOrder: index });
    }
    await page.goto("/folders/new");
    const dialog = page.getByRole("dialog", { name: "Folder Details" });
    await dialog.getByLabel("Folder name").fill("Sixth");
    await dialog.getByLabel("Recipient 1 name").fill("Mum");
    await dialog.getByLabel("Recipient 1 email").fill("mum@example.com");
    // The fifth folder arrives from elsewhere (another tab) while this form is open.
    createFolderRow(user.id, { name: "Folder 5", sortOrder: 4 });
    await dialog.getByRole("button", { name: "Save" }).click();

    await expect(page).toHaveURL("/upgrade");
    await expect(page.getByRole("dialog", { name: "Upgrade to Premium" })).toBeVisible();
    await expect(page.getByText("Folder Limit Reached")).toBeVisible();
    await expect(
      page.getByText("Hey there! You've reached your maximum of 5 unique folders."),
    ).toBeVisible();
    expect(foldersOf(user.id)).toHaveLength(5);
  });
});
