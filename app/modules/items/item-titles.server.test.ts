import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createUser, uniqueEmail } from "#db/factories";
import { startPreviewPages } from "#tests/support/preview-pages";
import { db } from "~/platform/db.server";
import { titleFromFileName } from "./item-titles";
import {
  PAGE_TITLES_PER_USER,
  siteName,
  titleForLink,
  withLinkTitle,
  withUploadTitle,
} from "./item-titles.server";

let pages: Awaited<ReturnType<typeof startPreviewPages>>;
beforeAll(async () => {
  pages = await startPreviewPages();
});
afterAll(() => pages.close());

const loopback = { allowLoopback: true };
const SAVER = createUser(db, { email: uniqueEmail("titles") }).id;

describe("a link saved without a title", () => {
  test("takes the page's own title, fetched while saving", async () => {
    expect(await titleForLink(SAVER, "", [`${pages.origin}/article/tides`], loopback)).toBe(
      "tides: the long read",
    );
    expect(await titleForLink(SAVER, "", [`${pages.origin}/plain/kites`], loopback)).toBe(
      "kites only",
    );
  });

  test("a page's title loses the site's name it ends with", async () => {
    expect(await titleForLink(SAVER, "", [`${pages.origin}/titled/Bread`], loopback)).toBe("Bread");
  });

  test("a page that fails or is refused gives its site's name; a typed title wins", async () => {
    expect(await titleForLink(SAVER, "", [`${pages.origin}/broken`], loopback)).toBe("127.0.0.1");
    // Loopback is refused outside tests: the site's name, without a fetch.
    expect(await titleForLink(SAVER, "", ["http://localhost:1/x"])).toBe("localhost");
    expect(await titleForLink(SAVER, "Mine", [`${pages.origin}/article/tides`], loopback)).toBe(
      "Mine",
    );
    expect(siteName("https://www.news.example.org/a")).toBe("news.example.org");
    expect(siteName("javascript:alert(1)")).toBe("");
  });

  test("a saver's fetches are bounded: past the hour's allowance, the site's name", async () => {
    const busy = createUser(db, { email: uniqueEmail("busy") }).id;
    const tides = `${pages.origin}/article/tides`;
    const fetchedBefore = pages.requests.length;
    for (let at = 0; at < PAGE_TITLES_PER_USER.points; at += 1) {
      await titleForLink(busy, "", [`${pages.origin}/plain/kites`], loopback);
    }
    expect(pages.requests.length - fetchedBefore).toBe(PAGE_TITLES_PER_USER.points);
    expect(await titleForLink(busy, "", [tides], loopback)).toBe("127.0.0.1");
    expect(pages.requests.length - fetchedBefore).toBe(PAGE_TITLES_PER_USER.points);
    // Another saver still gets page titles.
    expect(await titleForLink(SAVER, "", [tides], loopback)).toBe("tides: the long read");
  });

  test("a page slower than the short timeout gives its site's name", async () => {
    const started = Date.now();
    expect(
      await titleForLink(SAVER, "", [`${pages.origin}/slow/tides`], {
        ...loopback,
        timeoutMs: 300,
      }),
    ).toBe("127.0.0.1");
    expect(Date.now() - started).toBeLessThan(1_500);
  });
});

describe("a link from the app's own sheets saved with its title left empty", () => {
  test("gets one as quick saves do; a typed title and other items are left as they are", async () => {
    // Loopback is refused outside tests, so the site's name, without a fetch.
    expect(
      await withLinkTitle(SAVER, { type: "link", title: "", urls: ["http://localhost:1/x"] }),
    ).toEqual({ type: "link", title: "localhost", urls: ["http://localhost:1/x"] });
    const typed = { type: "link", title: "Mine", urls: ["http://localhost:1/x"] };
    expect(await withLinkTitle(SAVER, typed)).toBe(typed);
    const musing = { type: "musing", title: "", note: "Hello" };
    expect(await withLinkTitle(SAVER, musing)).toBe(musing);
  });
});

test("a file's name reads as a title", () => {
  expect(titleFromFileName("IMG_2041.jpg")).toBe("IMG 2041");
  expect(
    titleFromFileName("IMG_2041.pdf", { kind: "file", date: new Date(), timeZone: "UTC" }),
  ).toBe("IMG 2041");
  expect(titleFromFileName("summer-menu.v2.pdf")).toBe("summer menu.v2");
  expect(titleFromFileName(".profile")).toBe(".profile");
  expect(titleFromFileName(`${"a".repeat(300)}.png`)).toHaveLength(200);
});

describe("photos or a clip sent from an Add sheet without a title", () => {
  const at = { date: new Date("2026-11-04T10:00:00Z"), timeZone: "Europe/London" };
  const thisYear = at.date.getFullYear() === new Date().getFullYear();
  const form = (fields: Record<string, string>) => {
    const formData = new FormData();
    for (const [name, value] of Object.entries(fields)) formData.set(name, value);
    return formData;
  };

  test("take the share page's title, the rest of the form as sent", () => {
    const sent = form({ title: "  ", commentText: "For Mum" });
    const photo = [{ name: "IMG_2041.jpg", takenOn: "2019-06-01" }];
    const filled = withUploadTitle(sent, "photo", photo, at);
    expect(Object.fromEntries(filled)).toEqual({
      title: "Photo, Sat 1 Jun 2019",
      commentText: "For Mum",
    });
    expect(withUploadTitle(form({}), "video", [{ name: "VID_0042.mp4" }], at).get("title")).toBe(
      thisYear ? "Video, Wed 4 Nov" : "Video, Wed 4 Nov 2026",
    );
  });

  test("a typed title, a file's, and a form without files are left as they are", () => {
    const typed = form({ title: "Beach" });
    expect(withUploadTitle(typed, "photo", [{ name: "IMG_2041.jpg" }], at)).toBe(typed);
    const document = form({ title: "" });
    expect(withUploadTitle(document, "file", [{ name: "menu.pdf" }], at)).toBe(document);
    const empty = form({ title: "" });
    expect(withUploadTitle(empty, "photo", [], at)).toBe(empty);
  });
});
