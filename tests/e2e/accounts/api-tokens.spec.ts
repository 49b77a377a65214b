import { expect, test } from "../fixtures";
import { confirmWithPassword, createFolderRow, createUser, signIn } from "../support/accounts";

/**
 * API tokens from Profile Settings, with and without JavaScript: created,
 * shown once, used by a program, listed with their last use and expiry, and
 * revoked. Creating one asks "Confirm it's you" first.
 */
test("a token is created on the profile page, works once shown, and stops when revoked", async ({
  page,
  context,
  baseURL,
  request,
  expectAccessible,
}) => {
  const user = await createUser();
  createFolderRow(user.id, { name: "Reading" });
  await signIn(context, user.id, baseURL!);

  await page.goto("/profile");
  await expect(page.getByText("No tokens yet.")).toBeVisible();
  await page.getByRole("link", { name: "New API token" }).click();
  await confirmWithPassword(page);
  const form = page.getByRole("dialog", { name: "New API token" });
  await form.getByLabel("Name").fill("Phone shortcut");
  await form.getByLabel("Access").selectOption("write");
  await expect(form.getByLabel("Expires after")).toHaveValue("90");
  await form.getByLabel("Expires after").selectOption("30");
  await form.getByRole("button", { name: "Create token" }).click();
  const shown = page.getByRole("dialog", { name: "Your new API token" });
  await expect(shown).toBeVisible();
  await expectAccessible();
  const token = await shown.getByRole("textbox").inputValue();
  expect(token).toMatch(/^tht_/);

  const authorization = { Authorization: `Bearer ${token}` };
  const folders = await request.get("/api/v1/folders", { headers: authorization });
  expect(folders.status()).toBe(200);
  expect((await folders.json()).map((folder: { name: string }) => folder.name)).toEqual([
    "Reading",
  ]);

  // The browser's own session, without the token, writes nothing through the API.
  const withCookieOnly = await page.request.post("/api/v1/folders", {
    data: { name: "Sneaky", recipients: [{ name: "A", email: "a@example.com" }] },
  });
  expect(withCookieOnly.status()).toBe(401);

  await shown.getByRole("link", { name: "Done" }).click();
  await expect(shown).toBeHidden();
  // The token was used after the page was loaded: load it again to see that use.
  await page.reload();
  const listed = page.getByRole("region", { name: "API tokens" });
  await expect(listed.getByRole("listitem")).toHaveText(
    /^Phone shortcutRead and write · created .+ · last used: (?!Never).+ · expires .+Revoke/,
  );
  await listed.getByRole("button", { name: "Revoke Phone shortcut" }).click();
  await expect(page.getByText("Token revoked")).toBeVisible();
  await expect(listed.getByText("No tokens yet.")).toBeVisible();
  expect((await request.get("/api/v1/folders", { headers: authorization })).status()).toBe(401);
});
