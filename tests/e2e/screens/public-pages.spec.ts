import fs from "node:fs";
import path from "node:path";
import { expect, test } from "../fixtures";

test.describe("landing page", () => {
  test("shows the hero, the four steps, the closing banner and the footer", async ({
    page,
    expectAccessible,
  }) => {
    const response = await page.goto("/");
    expect(response?.status()).toBe(200);
    await expect(
      page.getByRole("heading", { level: 1, name: "Share Thoughtfully." }),
    ).toBeVisible();
    const header = page.getByRole("navigation", { name: "Main" });
    await expect(header.getByRole("link", { name: "Sign Up" })).toHaveAttribute("href", "/signup");
    await expect(header.getByRole("link", { name: "Log In" })).toHaveAttribute("href", "/login");
    await expect(page.getByRole("link", { name: "I'm in", exact: true })).toHaveAttribute(
      "href",
      "/signup",
    );
    for (const step of ["Create Folders", "Save Content", "Scheduled Send", "Share Thoughtfully"]) {
      await expect(page.getByRole("heading", { level: 3, name: step })).toBeVisible();
    }
    await expect(page.getByRole("link", { name: "Ok, now I'm in" })).toHaveAttribute(
      "href",
      "/signup",
    );
    const footer = page.getByRole("contentinfo");
    await expect(footer).toContainText("© 2025 Thoughtfully · Produced by a small studio");
    await expect(footer.getByRole("link", { name: "Privacy Policy" })).toHaveAttribute(
      "href",
      "/privacy-policy",
    );
    await expect(footer.getByRole("link", { name: "Support" })).toHaveAttribute("href", "/support");
    await expectAccessible();
  });

  test("footer links lead to the static pages", async ({ page }) => {
    await page.goto("/");
    await page.getByRole("contentinfo").getByRole("link", { name: "Privacy Policy" }).click();
    await expect(page).toHaveURL(/\/privacy-policy$/);
    await expect(page.getByRole("heading", { level: 1, name: "Privacy Policy" })).toBeVisible();
  });

  test("fits a 320 px phone without sideways scrolling", async ({ page }) => {
    await page.setViewportSize({ width: 320, height: 640 });
    await page.goto("/");
    const overflow = await page.evaluate(
      () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
    );
    expect(overflow).toBeLessThanOrEqual(0);
  });
});

test.describe("static pages", () => {
  test("privacy policy carries its effective date", async ({ page, expectAccessible }) => {
    const response = await page.goto("/privacy-policy");
    expect(response?.status()).toBe(200);
    await expect(page.getByRole("heading", { level: 1, name: "Privacy Policy" })).toBeVisible();
    await expect(page.getByText("Effective date: November 26, 2026")).toBeVisible();
    await expect(
      page.getByRole("heading", { level: 2, name: "Hearts and notes from recipients" }),
    ).toBeVisible();
    await expect(page.getByText("thoughtfully_session", { exact: true })).toBeVisible();
    await expectAccessible();
  });

  test("support offers a support e-mail link", async ({ page, expectAccessible }) => {
    const response = await page.goto("/support");
    expect(response?.status()).toBe(200);
    await expect(page.getByRole("heading", { level: 1, name: "Support" })).toBeVisible();
    await expect(
      page.getByRole("main").getByRole("link", { name: "support@thoughtfully.app" }).first(),
    ).toHaveAttribute("href", "mailto:support@thoughtfully.app");
    await expect(
      page.getByRole("heading", { level: 3, name: "How do recipients answer?" }),
    ).toBeVisible();
    await expectAccessible();
  });

  test("chrome extension page links to the store and announces Firefox", async ({
    page,
    expectAccessible,
  }) => {
    const response = await page.goto("/chrome-extension");
    expect(response?.status()).toBe(200);
    await expect(page.getByRole("heading", { level: 1, name: "Chrome Extension" })).toBeVisible();
    await expect(page.getByRole("link", { name: "Add to Chrome" })).toHaveAttribute(
      "href",
      /chromewebstore\.google\.com/,
    );
    await expect(page.getByRole("heading", { name: /Firefox.*Coming Soon/ })).toBeVisible();
    await expectAccessible();
  });
});

test.describe("not found", () => {
  for (const path of ["/no-such-page", "/deeply/nested/nothing", "/nothing/here/abc"]) {
    test(`${path} answers 404 with the not-found screen`, async ({ page, expectAccessible }) => {
      const response = await page.goto(path);
      expect(response?.status()).toBe(404);
      await expect(
        page.getByRole("heading", { level: 1, name: "404 Page Not Found" }),
      ).toBeVisible();
      await expect(page.getByText("Did you forget to add the page to the router?")).toBeVisible();
      await expectAccessible();
    });
  }

  test("a signed-in sender is offered their folders, not Sign Up and Log In", async ({
    page,
    login,
  }) => {
    await login();
    for (const path of ["/no-such-page", "/reauthenticate?redirectTo=%2Fprofile%2Ftokens"]) {
      await page.goto(path);
      const header = page.getByRole("navigation", { name: "Main" });
      await expect(header.getByRole("link", { name: "My Folders" })).toHaveAttribute("href", "/");
      await expect(header.getByRole("link", { name: "Sign Up" })).toHaveCount(0);
      await expect(header.getByRole("link", { name: "Log In" })).toHaveCount(0);
    }
    await page
      .getByRole("navigation", { name: "Main" })
      .getByRole("link", { name: "My Folders" })
      .click();
    await expect(page.getByRole("heading", { name: "My Folders" })).toBeVisible();
  });
});

test.describe("health and headers", () => {
  test("healthz answers 200 while the database answers", async ({ request }) => {
    const response = await request.get("/healthz");
    expect(response.status()).toBe(200);
    expect(await response.text()).toBe("OK");
  });

  test("pages carry a nonce-based CSP and the other security headers", async ({ request }) => {
    const first = await request.get("/");
    const second = await request.get("/");
    const csp = first.headers()["content-security-policy"] ?? "";
    expect(csp).toMatch(/script-src 'nonce-[A-Za-z0-9+/=]+'/);
    expect(csp).toContain("object-src 'none'");
    expect(csp).toContain("base-uri 'none'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(second.headers()["content-security-policy"]).not.toBe(csp);
    expect(first.headers()["x-content-type-options"]).toBe("nosniff");
    expect(first.headers()["referrer-policy"]).toBe("strict-origin-when-cross-origin");
    const nonce = /'nonce-([^']+)'/.exec(csp)?.[1];
    const html = await first.text();
    expect(html).toContain(`nonce="${nonce}"`);
  });

  test("a page arrives whole, with its loader data for the browser", async ({ request }) => {
    // Pages are rendered in one pass after reading Remix's data hand-off
    // (app/platform/render-document.server.tsx): the data scripts must all be in it.
    const response = await request.get("/login");
    expect(response.status()).toBe(200);
    expect(response.headers()["content-type"]).toBe("text/html; charset=utf-8");
    const html = await response.text();
    expect(html.startsWith("<!DOCTYPE html><html")).toBe(true);
    expect(html).toContain("window.__remixContext.streamController.enqueue(");
    expect(html).toContain(">window.__remixContext.streamController.close();</script>");
    // React's mark for a part it could not finish on the server.
    expect(html).not.toContain("<!--$!-->");
  });
});

test.describe("outbox", () => {
  test("lists the e-mails written without SMTP and shows one, on a local (http) server", async ({
    page,
  }) => {
    // Written as the mailer does when SMTP_URL is unset; this server sends by SMTP, so it is the only one.
    const outbox = path.join(process.env.E2E_DATA_DIR!, "outbox");
    fs.mkdirSync(outbox, { recursive: true });
    const id = `${Date.now()}-${Math.random().toString(36).slice(2)}.eml`;
    const subject = `Outbox check ${id}`;
    fs.writeFileSync(
      path.join(outbox, id),
      [
        "From: Thoughtfully <hello@thoughtfully.example>",
        "To: mum@example.com",
        `Subject: ${subject}`,
        "Date: Sun, 22 Nov 2026 04:00:00 +0000",
        "MIME-Version: 1.0",
        "Content-Type: text/plain; charset=utf-8",
        "",
        "Written for the outbox test.",
        "",
      ].join("\r\n"),
    );
    await page.goto("/dev/outbox");
    await expect(page.getByRole("heading", { level: 1, name: "Outbox" })).toBeVisible();
    await page.getByRole("link", { name: subject }).click();
    await expect(page.getByRole("heading", { level: 1, name: subject })).toBeVisible();
    await expect(page.getByText("Written for the outbox test.")).toBeVisible();
    await expect(page.getByText("mum@example.com")).toBeVisible();
  });
});

test("every public page describes itself to search engines and link previews", async ({ page }) => {
  for (const path of [
    "/",
    "/signup",
    "/login",
    "/forgot-password",
    "/support",
    "/privacy-policy",
    "/chrome-extension",
  ]) {
    await page.goto(path);
    const descriptions = page.locator('head meta[name="description"]');
    await expect(descriptions, path).toHaveCount(1);
    expect((await descriptions.getAttribute("content"))?.length ?? 0, path).toBeGreaterThan(40);
  }
});
