import crypto from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { type BrowserContext, chromium, type Page } from "@playwright/test";

export const extensionDir = path.resolve("extension");

/** The little of the extension API the test calls from the extension's own page. */
export type ExtensionGlobals = {
  chrome: { tabs: { query(query: object): Promise<{ id?: number; url?: string }[]> } };
};

/** Chromium names an unpacked extension after the SHA-256 of its folder's path, in letters a–p. */
export function unpackedExtensionId(dir: string) {
  return crypto
    .createHash("sha256")
    .update(dir)
    .digest("hex")
    .slice(0, 32)
    .replace(/./g, (digit) => String.fromCharCode(97 + Number.parseInt(digit, 16)));
}

/** A page on loopback to save, standing in for any site on the web. */
export async function startLoopbackSite() {
  const server = http.createServer((_request, response) => {
    response.setHeader("Content-Type", "text/html; charset=utf-8");
    response.end(
      "<!doctype html><html lang='en'><title>Loopback reading list</title><h1>Worth sharing</h1></html>",
    );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/reading` };
}

/** Chromium with the unpacked extension, in a fresh profile. */
export function launchWithExtension(profileDir: string) {
  return chromium.launchPersistentContext(profileDir, {
    executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      `--disable-extensions-except=${extensionDir}`,
      `--load-extension=${extensionDir}`,
      "--enable-unsafe-extension-debugging",
    ],
  });
}

/** Options: point the extension at the test server (its default is localhost:3000). */
export async function pointExtensionAt(
  context: BrowserContext,
  extensionId: string,
  appUrl: string,
) {
  const options = await context.newPage();
  await options.goto(`chrome-extension://${extensionId}/options.html`);
  await options.getByLabel("Thoughtfully address").fill(appUrl);
  await options.getByRole("button", { name: "Save" }).click();
  await options.getByRole("status").getByText("Saved.").waitFor();
  await options.close();
}

/**
 * A user's click on the toolbar icon over the tab showing `siteUrl` is the
 * CDP command Extensions.triggerAction (which needs
 * --enable-unsafe-extension-debugging): it grants `activeTab` on that tab and
 * opens the popup, just as the click does. Playwright cannot drive the toolbar
 * popup window itself, so the popup page is then opened in a tab, pointed at
 * the granted tab with `?tab=`: what it can read is exactly what `activeTab`
 * allows (without the grant, the tab's URL and title are hidden).
 */
export async function clickToolbarIcon(
  context: BrowserContext,
  extensionId: string,
  siteUrl: string,
): Promise<Page> {
  const browserSession = await context.browser()!.newBrowserCDPSession();
  const { targetInfos } = await browserSession.send("Target.getTargets", {
    filter: [{ type: "tab" }],
  });
  const target = targetInfos.find((info) => info.url === siteUrl);
  if (!target) throw new Error(`no tab shows ${siteUrl}`);
  await browserSession.send("Extensions.triggerAction", {
    id: extensionId,
    targetId: target.targetId,
  });
  const popup = await context.newPage();
  await popup.goto(`chrome-extension://${extensionId}/popup.html`);
  const tabId = await popup.evaluate(async (url) => {
    const { chrome } = globalThis as unknown as ExtensionGlobals;
    const tabs = await chrome.tabs.query({});
    return tabs.find((candidate) => candidate.url === url)?.id ?? null;
  }, siteUrl);
  if (tabId === null) throw new Error("activeTab did not show the clicked tab's URL");
  await popup.goto(`chrome-extension://${extensionId}/popup.html?tab=${tabId}`);
  return popup;
}

/**
 * Runs `test` in Chromium with the unpacked extension in a fresh profile, next
 * to a loopback site to save; closes and removes all of it afterwards.
 */
export async function withExtensionBrowser(
  test: (browser: {
    context: BrowserContext;
    extensionId: string;
    site: Awaited<ReturnType<typeof startLoopbackSite>>;
  }) => Promise<void>,
) {
  const site = await startLoopbackSite();
  const profileDir = fs.mkdtempSync(path.join(os.tmpdir(), "thoughtfully-extension-"));
  let context: BrowserContext | null = null;
  try {
    context = await launchWithExtension(profileDir);
    await test({ context, extensionId: unpackedExtensionId(extensionDir), site });
  } finally {
    await context?.close();
    site.server.close();
    fs.rmSync(profileDir, { recursive: true, force: true });
  }
}
