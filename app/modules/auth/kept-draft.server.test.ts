import { describe, expect, test } from "vitest";
import { tokenFor } from "~/platform/csrf-token.server";
import {
  decodeDraft,
  draftFor,
  encodeDraft,
  KEPT_DRAFT_TTL_MS,
  keepDraftOf,
  pageOf,
  takeKeptDraft,
} from "./kept-draft.server";

const ENDED = "hash-of-the-ended-session";

function form(fields: [string, string][]) {
  const formData = new FormData();
  for (const [name, value] of fields) formData.append(name, value);
  return formData;
}

function post(url: string, headers: Record<string, string> = {}) {
  return new Request(url, {
    method: "POST",
    headers: { "Sec-Fetch-Site": "same-origin", ...headers },
  });
}

/** The cookie a browser would send back for a Set-Cookie header. */
const cookieOf = (setCookie: string) => setCookie.split(";")[0]!;

describe("keepDraftOf", () => {
  const typed: [string, string][] = [
    ["csrf", tokenFor(`session:${ENDED}`)],
    ["title", "Thinking of you"],
    ["urls[0]", "https://example.com/"],
    ["password", "hunter22"],
  ];

  test("keeps the typed fields of a form made for the ended session, never secrets", async () => {
    const setCookie = await keepDraftOf(
      post("http://localhost:3000/folders/1/add/link?index"),
      ENDED,
      form(typed),
    );
    expect(setCookie).toMatch(/HttpOnly; SameSite=Lax; Max-Age=900/);
    const draft = decodeDraft(cookieOf(setCookie!).split("=")[1]!);
    expect(draft).toMatchObject({
      page: "/folders/1/add/link",
      fields: [
        ["title", "Thinking of you"],
        ["urls[0]", "https://example.com/"],
      ],
    });
  });

  test("keeps nothing from another site, or from a form made for another session", async () => {
    const url = "http://localhost:3000/folders/1/add/link";
    expect(
      await keepDraftOf(post(url, { "Sec-Fetch-Site": "cross-site" }), ENDED, form(typed)),
    ).toBeNull();
    expect(await keepDraftOf(post(url), "some-other-session", form(typed))).toBeNull();
    expect(await keepDraftOf(post(url), ENDED, form([["title", "no token"]]))).toBeNull();
  });

  test("reads a form with files for its text fields only", async () => {
    const body = form(typed);
    body.append("files", new File([new Uint8Array(100_000)], "photo.jpg", { type: "image/jpeg" }));
    const request = new Request("http://localhost:3000/folders/1/add/photo", {
      method: "POST",
      headers: { "Sec-Fetch-Site": "same-origin" },
      body,
    });
    const setCookie = await keepDraftOf(request, ENDED);
    expect(decodeDraft(cookieOf(setCookie!).split("=")[1]!)?.fields).toEqual([
      ["title", "Thinking of you"],
      ["urls[0]", "https://example.com/"],
    ]);
  });
});

describe("draftFor", () => {
  test("keeps whole fields while they fit in a cookie, and nothing when nothing was typed", () => {
    const random = (length: number) =>
      Array.from({ length }, () => String.fromCharCode(33 + Math.floor(Math.random() * 90))).join(
        "",
      );
    const encoded = draftFor(
      "/p",
      form([
        ["title", "Short"],
        ["note", random(10_000)],
        ["comment", "Also"],
      ]),
    );
    expect(encoded!.length).toBeLessThan(3800);
    expect(decodeDraft(encoded!)?.fields).toEqual([
      ["title", "Short"],
      ["comment", "Also"],
    ]);
    expect(draftFor("/p", form([["title", "  "]]))).toBeNull();
  });

  test("a long note of ordinary words still fits, compressed", () => {
    const note = "The garden is in bloom and the roses are out. ".repeat(60);
    expect(decodeDraft(draftFor("/p", form([["note", note]]))!)?.fields).toEqual([["note", note]]);
  });
});

describe("decodeDraft", () => {
  test("refuses a changed or expired draft", () => {
    const draft = {
      page: "/p",
      fields: [["title", "Hi"]] as [string, string][],
      expiresAt: Date.now() + 1000,
    };
    const encoded = encodeDraft(draft);
    expect(decodeDraft(encoded)).toEqual(draft);
    expect(decodeDraft(`${encoded.slice(0, -2)}xx`)).toBeNull();
    expect(decodeDraft(encoded, Date.now() + KEPT_DRAFT_TTL_MS)).toBeNull();
  });
});

describe("takeKeptDraft", () => {
  const encoded = encodeDraft({
    page: "/folders/1/add/link",
    fields: [
      ["title", "Hi"],
      ["urls[0]", "https://example.com/"],
    ],
    expiresAt: Date.now() + 60_000,
  });
  const get = (url: string) =>
    new Request(url, { headers: { Cookie: `thoughtfully_draft=${encoded}` } });

  test("refills its own page once, as conform's values", () => {
    const { keptDraft, setCookie } = takeKeptDraft(get("http://localhost:3000/folders/1/add/link"));
    expect(keptDraft).toEqual({
      page: "/folders/1/add/link",
      initialValue: { title: "Hi", urls: ["https://example.com/"] },
    });
    expect(setCookie).toMatch(/Max-Age=0/);
  });

  test("waits on another page", () => {
    expect(takeKeptDraft(get("http://localhost:3000/login/two-factor"))).toEqual({
      keptDraft: null,
      setCookie: null,
    });
  });
});

describe("pageOf", () => {
  test("drops Remix's markers and keeps the rest of the query", () => {
    expect(pageOf(new URL("http://x/folders/new?index"))).toBe("/folders/new");
    expect(pageOf(new URL("http://x/add?_data=root&folder=2"))).toBe("/add?folder=2");
  });
});
