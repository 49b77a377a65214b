import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { startPreviewPages } from "#tests/support/preview-pages";
import { titleFromFileName } from "./item-titles";
import { siteName, titleForLink } from "./item-titles.server";

let pages: Awaited<ReturnType<typeof startPreviewPages>>;
beforeAll(async () => {
  pages = await startPreviewPages();
});
afterAll(() => pages.close());

const loopback = { allowLoopback: true };

describe("a link saved without a title", () => {
  test("takes the page's own title, fetched while saving", async () => {
    expect(await titleForLink("", [`${pages.origin}/article/tides`], loopback)).toBe(
      "tides: the long read",
    );
    expect(await titleForLink("", [`${pages.origin}/plain/kites`], loopback)).toBe("kites only");
  });

  test("a page that fails or is refused gives its site's name; a typed title wins", async () => {
    expect(await titleForLink("", [`${pages.origin}/broken`], loopback)).toBe("127.0.0.1");
    // Loopback is refused outside tests: the site's name, without a fetch.
    expect(await titleForLink("", ["http://localhost:1/x"])).toBe("localhost");
    expect(await titleForLink("Mine", [`${pages.origin}/article/tides`], loopback)).toBe("Mine");
    expect(siteName("https://www.news.example.org/a")).toBe("news.example.org");
    expect(siteName("javascript:alert(1)")).toBe("");
  });

  test("a page slower than the short timeout gives its site's name", async () => {
    const started = Date.now();
    const { fetchPageTitle } = await import("./link-previews.server");
    expect(
      await fetchPageTitle(`${pages.origin}/article/slow`, { ...loopback, timeoutMs: 1 }),
    ).toBeNull();
    expect(Date.now() - started).toBeLessThan(2000);
  });
});

test("a file's name reads as a title", () => {
  expect(titleFromFileName("IMG_2041.jpg")).toBe("IMG 2041");
  expect(titleFromFileName("summer-menu.v2.pdf")).toBe("summer menu.v2");
  expect(titleFromFileName(".profile")).toBe(".profile");
  expect(titleFromFileName(`${"a".repeat(300)}.png`)).toHaveLength(200);
});
