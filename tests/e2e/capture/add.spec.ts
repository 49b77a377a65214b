import type { Page } from "@playwright/test";
import { expect, test } from "../fixtures";
import { createFolderRow, createUser, foldersOf, TEST_PASSWORD } from "../support/accounts";
import { itemsOf } from "../support/items";

/** `/add` as the extension and the bookmarklet open it. */
function extensionUrl(values: { url?: string; title?: string; note?: string }) {
  const params = new URLSearchParams({ extension: "true" });
  for (const [key, value] of Object.entries(values))
    if (value !== undefined) params.set(key, value);
  return `/add?${params}`;
}

async function chooseFolder(page: Page, name: string) {
  await page.getByRole("link", { name: `Add to ${name}` }).click();
  const dialog = page.getByRole("dialog", { name: `Add Link to ${name}` });
  await expect(dialog).toBeVisible();
  return dialog;
}

/** Lighthouse's scan of `/add` also checks that each folder card's name holds what it shows. */
const LABEL_IN_NAME = { alsoRules: ["label-content-name-mismatch"] };

test.describe("/add", () => {
  test("from the extension, signed out: log in, choose a folder, the link is saved", async ({
    page,
    expectAccessible,
  }) => {
    const user = await createUser();
    createFolderRow(user.id, { name: "Family" });
    const reading = createFolderRow(user.id, {
      name: "Reading",
      recipients: [
        { name: "Mum", email: "mum@example.com" },
        { name: "Dad", email: "dad@example.com" },
      ],
    });
    const addUrl = extensionUrl({
      url: "https://example.com/articles/slow-mornings?ref=ext",
      title: "Slow mornings & strong coffee",
      note: "Made me think of you",
    });

    await page.goto(addUrl);
    await expect(page).toHaveURL(/\/login\?redirectTo=/);
    await expect(page.getByText("Please log in")).toBeVisible();
    await expect(page.getByText("You need to be logged in to add content.")).toBeVisible();
    expect(new URL(page.url()).searchParams.get("redirectTo")).toBe(addUrl);

    await page.getByLabel("Email").fill(user.email);
    await page.getByLabel("Password").fill(TEST_PASSWORD);
    await page.getByRole("button", { name: "Log In" }).click();

    await expect(page.getByRole("heading", { name: "Add content" })).toBeVisible();
    expect(`${new URL(page.url()).pathname}${new URL(page.url()).search}`).toBe(addUrl);
    const preview = page.getByRole("article", { name: "Captured from your browser" });
    await expect(preview.getByText("Slow mornings & strong coffee")).toBeVisible();
    await expect(
      preview.getByRole("link", { name: "https://example.com/articles/slow-mornings?ref=ext" }),
    ).toBeVisible();
    await expect(preview.getByText("Made me think of you")).toBeVisible();
    const readingCard = page.getByRole("link", { name: "Add to Reading" });
    await expect(readingCard).toContainText("mum@example.com, dad@example.com");
    await expect(readingCard).toContainText("Weekly · 0 items");
    await expectAccessible(LABEL_IN_NAME);

    const dialog = await chooseFolder(page, "Reading");
    await expect(dialog.getByLabel("Title")).toHaveValue("Slow mornings & strong coffee");
    await expect(dialog.getByLabel("Link 1", { exact: true })).toHaveValue(
      "https://example.com/articles/slow-mornings?ref=ext",
    );
    await expect(dialog.getByLabel("Leave a comment")).toBeChecked();
    await expect(dialog.getByRole("textbox", { name: "Comment" })).toHaveValue(
      "Made me think of you",
    );
    await expectAccessible();
    await dialog.getByRole("button", { name: "Add", exact: true }).click();

    await expect(page.getByText("Content captured from browser!")).toBeVisible();
    await expect(page).toHaveURL(new RegExp(`/folders/${reading.id}#item-\\d+$`));
    await expect(page.getByText("Slow mornings & strong coffee")).toBeVisible();
    const [item] = itemsOf(reading.id);
    expect(item).toMatchObject({
      type: "link",
      title: "Slow mornings & strong coffee",
      urls: ["https://example.com/articles/slow-mornings?ref=ext"],
      addComment: true,
      commentText: "Made me think of you",
    });
  });

  test("the share target: a phone shares text with the URL inside it", async ({
    login,
    page,
    request,
  }) => {
    // Phones that installed the app before its share target took files still share by GET
    // (tests/e2e/capture/share-files.spec.ts has today's POST share target).
    const manifest = await (await request.get("/manifest.webmanifest")).json();
    expect(manifest).toMatchObject({ name: "Thoughtfully", display: "standalone", start_url: "/" });
    for (const icon of manifest.icons as { src: string }[]) {
      expect((await request.get(icon.src)).headers()["content-type"]).toBe("image/png");
    }

    const user = await login();
    const folder = createFolderRow(user.id, { name: "Phone finds" });
    // What Android's share sheet builds from the manifest: no url, the link inside text.
    const shared = new URLSearchParams({
      title: "A quiet village",
      text: "Look at this https://news.example.org/story/42?x=1. via News",
    });
    await page.goto(`/add?${shared}`);
    await expect(page.locator('link[rel="manifest"]')).toHaveAttribute(
      "href",
      "/manifest.webmanifest",
    );
    const preview = page.getByRole("article", { name: "Captured from your browser" });
    await expect(
      preview.getByRole("link", { name: "https://news.example.org/story/42?x=1" }),
    ).toBeVisible();
    await expect(preview.getByText("Look at this via News")).toBeVisible();

    const dialog = await chooseFolder(page, "Phone finds");
    await expect(dialog.getByLabel("Link 1", { exact: true })).toHaveValue(
      "https://news.example.org/story/42?x=1",
    );
    await dialog.getByRole("button", { name: "Add", exact: true }).click();
    await expect(page.getByText("Content captured from browser!")).toBeVisible();
    expect(itemsOf(folder.id)).toMatchObject([
      {
        title: "A quiet village",
        urls: ["https://news.example.org/story/42?x=1"],
        commentText: "Look at this via News",
      },
    ]);
  });

  test("overlong or malformed parameters get the form's messages, never an error page", async ({
    login,
    page,
    expectAccessible,
  }) => {
    const user = await login();
    const folder = createFolderRow(user.id, { name: "Odd input" });
    const title = "T".repeat(250);
    const note = "n".repeat(1200);

    const response = await page.goto(extensionUrl({ url: "javascript:alert(1)", title, note }));
    expect(response?.status()).toBe(200);
    const preview = page.getByRole("article", { name: "Captured from your browser" });
    await expect(preview.getByText("Invalid URL format")).toBeVisible();
    await expect(preview.getByText("Title too long")).toBeVisible();
    await expect(preview.getByText("Comment too long")).toBeVisible();
    await expect(page.locator('a[href^="javascript:"]')).toHaveCount(0);
    await expectAccessible(LABEL_IN_NAME);

    const dialog = await chooseFolder(page, "Odd input");
    await expect(dialog.getByText("Invalid URL format")).toBeVisible();
    await expect(dialog.getByText("Title too long")).toBeVisible();
    await expect(dialog.getByText("Comment too long")).toBeVisible();
    await dialog.getByRole("button", { name: "Add", exact: true }).click();
    await expect(dialog.getByText("Invalid URL format")).toBeVisible();
    expect(itemsOf(folder.id)).toEqual([]);

    // An overlong URL, broken percent-encoding and a URL with spaces: still the form.
    for (const url of [
      `https://example.com/${"a".repeat(2100)}`,
      "https://exa mple.com/%E0%A4%A",
    ]) {
      const again = await page.goto(extensionUrl({ url, title: "Fine" }));
      expect(again?.status()).toBe(200);
      await expect(preview.getByText("Invalid URL format")).toBeVisible();
    }
    const broken = await page.goto("/add?extension=true&title=%E0%A4%A&url=%ZZ&note=%");
    expect(broken?.status()).toBe(200);
    await expect(page.getByRole("heading", { name: "Add content" })).toBeVisible();
  });

  test("with no folders it offers the first one and comes back with the same data", async ({
    login,
    page,
  }) => {
    const user = await login();
    const addUrl = extensionUrl({ url: "https://example.com/first", title: "First find" });
    await page.goto(addUrl);
    await page.getByRole("link", { name: "Create your first folder" }).click();
    const dialog = page.getByRole("dialog", { name: "Folder Details" });
    await dialog.getByLabel("Folder name").fill("Brand new");
    await dialog.getByLabel("Recipient 1 name").fill("Mum");
    await dialog.getByLabel("Recipient 1 email").fill("mum@example.com");
    await dialog.getByRole("button", { name: "Save" }).click();

    await expect(page.getByText("Folder created successfully!")).toBeVisible();
    expect(`${new URL(page.url()).pathname}${new URL(page.url()).search}`).toBe(addUrl);
    await expect(page.getByText("First find")).toBeVisible();
    const [folder] = foldersOf(user.id);
    const added = await chooseFolder(page, "Brand new");
    await added.getByLabel("Leave a comment").check();
    await added.getByRole("textbox", { name: "Comment" }).fill("For you");
    await added.getByRole("button", { name: "Add", exact: true }).click();
    await expect(page.getByText("Content captured from browser!")).toBeVisible();
    expect(itemsOf(folder!.id)).toMatchObject([{ title: "First find" }]);
  });

  test("without extension data: an empty Add Link and the usual toast", async ({
    login,
    page,
    expectAccessible,
  }) => {
    const user = await login();
    const folder = createFolderRow(user.id, { name: "Plain" });
    await page.goto("/add");
    await expect(page.getByRole("article")).toHaveCount(0);
    await expectAccessible(LABEL_IN_NAME);
    const dialog = await chooseFolder(page, "Plain");
    await expect(dialog.getByLabel("Title")).toHaveValue("");
    await dialog.getByLabel("Title").fill("Typed by hand");
    await dialog.getByLabel("Link 1", { exact: true }).fill("example.com/hand");
    await dialog.getByLabel("Leave a comment").check();
    await dialog.getByRole("textbox", { name: "Comment" }).fill("Hello");
    await dialog.getByRole("button", { name: "Add", exact: true }).click();
    await expect(page.getByText("Content added successfully!")).toBeVisible();
    expect(itemsOf(folder.id)).toMatchObject([{ urls: ["https://example.com/hand"] }]);
  });

  test("the bookmarklet is offered on /chrome-extension and the profile", async ({
    login,
    page,
    baseURL,
    expectAccessible,
  }) => {
    await page.goto("/chrome-extension");
    const bookmarklet = page.getByRole("link", { name: "Save to Thoughtfully" });
    await expect(bookmarklet).toHaveAttribute("href", new RegExp(`^javascript:.*${baseURL}/add`));
    await expectAccessible();
    await login();
    await page.goto("/profile");
    await expect(page.getByRole("heading", { name: "Save from any browser" })).toBeVisible();
    await expect(page.getByRole("link", { name: "Save to Thoughtfully" })).toHaveAttribute(
      "href",
      /^javascript:/,
    );
  });
});
