import { describe, expect, test } from "vitest";
import {
  compactUnsubscribeUrl,
  dontAskAgainToken,
  expandUnsubscribeCode,
  issueLinkCode,
  isValidResubscribeToken,
  isValidUnsubscribeToken,
  readDontAskAgainLink,
  readIssueLinkCode,
  readLinkParams,
  resubscribeToken,
  resubscribeUrl,
  unsubscribeMailto,
  unsubscribeToken,
  unsubscribeUrl,
} from "./recipient-links.server";

const codeOf = (url: string) => url.split("/u/")[1]!;

describe("compact unsubscribe links", () => {
  test("expand to the full signed link and never show the address", () => {
    const short = compactUnsubscribeUrl(7, "Grace@Example.net");
    expect(short).not.toContain("example.net");
    expect(expandUnsubscribeCode(codeOf(short))).toBe(unsubscribeUrl(7, "grace@example.net"));
  });

  test("a forged, altered or foreign code expands to nothing", () => {
    const code = codeOf(compactUnsubscribeUrl(7, "grace@example.net"));
    const [packed, token] = code.split(".");
    const otherFolder = Buffer.from("8:grace@example.net").toString("base64url");
    for (const forged of [
      `${otherFolder}.${token}`,
      `${packed}.${token!.slice(1)}x`,
      `${packed}.${resubscribeToken("grace@example.net", 7)}`,
      packed!,
      "",
      "....",
    ]) {
      expect(expandUnsubscribeCode(forged)).toBeNull();
    }
    expect(unsubscribeToken(7, "grace@example.net")).toBe(token);
  });
});

describe("links to one recipient's copy of a sent issue", () => {
  test("read back to the issue and the lower-cased address, which the code does not show", () => {
    const code = issueLinkCode("web", 42, "Grace@Example.net");
    expect(code).not.toContain("example.net");
    expect(readIssueLinkCode("web", code)).toEqual({ ledgerId: 42, email: "grace@example.net" });
  });

  test("a code works for its own purpose only, and an altered one for none", () => {
    const web = issueLinkCode("web", 42, "grace@example.net");
    expect(readIssueLinkCode("click", web)).toBeNull();
    expect(readIssueLinkCode("open", web)).toBeNull();
    const [packed, token] = web.split(".");
    const otherIssue = Buffer.from("43:grace@example.net").toString("base64url");
    const otherAddress = Buffer.from("42:alan@example.net").toString("base64url");
    for (const forged of [
      `${otherIssue}.${token}`,
      `${otherAddress}.${token}`,
      `${packed}.${token!.slice(1)}x`,
      `${packed}.${token}.extra`,
      packed!,
      "",
    ]) {
      expect(readIssueLinkCode("web", forged)).toBeNull();
    }
  });
});

function flip(token: string) {
  const last = token.at(-1) === "A" ? "B" : "A";
  return `${token.slice(0, -1)}${last}`;
}

describe("signed links", () => {
  test("an unsubscribe token verifies for its folder and address only", () => {
    const token = unsubscribeToken(7, "Mum@Example.com");
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(isValidUnsubscribeToken(7, "mum@example.com", token)).toBe(true);
    expect(isValidUnsubscribeToken(7, "MUM@example.com", token)).toBe(true);
    expect(isValidUnsubscribeToken(8, "mum@example.com", token)).toBe(false);
    expect(isValidUnsubscribeToken(7, "dad@example.com", token)).toBe(false);
    expect(isValidUnsubscribeToken(7, "mum@example.com", flip(token))).toBe(false);
    expect(isValidUnsubscribeToken(7, "mum@example.com", token.slice(1))).toBe(false);
    expect(isValidUnsubscribeToken(7, "mum@example.com", "")).toBe(false);
    expect(isValidUnsubscribeToken(7, "mum@example.com", "forged-token")).toBe(false);
  });

  test("re-subscribe and unsubscribe tokens are not interchangeable", () => {
    const resub = resubscribeToken("mum@example.com", 7);
    expect(isValidResubscribeToken("mum@example.com", 7, resub)).toBe(true);
    expect(isValidUnsubscribeToken(7, "mum@example.com", resub)).toBe(false);
    expect(
      isValidResubscribeToken("mum@example.com", 7, unsubscribeToken(7, "mum@example.com")),
    ).toBe(false);
    expect(isValidResubscribeToken("mum@example.com", 7, flip(resub))).toBe(false);
  });

  test("the URLs carry folder, address and token; the mailto carries folder and token", () => {
    const url = new URL(unsubscribeUrl(7, "Mum@Example.com"));
    expect(url.origin + url.pathname).toBe("http://localhost:3000/unsubscribe");
    const link = readLinkParams(url.searchParams)!;
    expect(link).toEqual({ folderId: 7, email: "mum@example.com", token: expect.any(String) });
    expect(isValidUnsubscribeToken(link.folderId, link.email, link.token)).toBe(true);

    const resub = new URL(resubscribeUrl("mum@example.com", 7));
    expect(resub.pathname).toBe("/resubscribe");
    const resubLink = readLinkParams(resub.searchParams)!;
    expect(isValidResubscribeToken(resubLink.email, resubLink.folderId, resubLink.token)).toBe(
      true,
    );

    expect(unsubscribeMailto(7, "mum@example.com")).toBe(
      `mailto:no-reply@localhost?subject=${encodeURIComponent(`unsubscribe-7-${unsubscribeToken(7, "mum@example.com")}`)}`,
    );
  });

  test("incomplete or malformed links are refused before any token check", () => {
    const params = (query: string) => readLinkParams(new URLSearchParams(query));
    expect(params("folder=7&email=a@b.c")).toBeNull();
    expect(params("email=a@b.c&token=x")).toBeNull();
    expect(params("folder=7&token=x")).toBeNull();
    expect(params("folder=-1&email=a@b.c&token=x")).toBeNull();
    expect(params("folder=1.5&email=a@b.c&token=x")).toBeNull();
    expect(params("folder=7&email=nobody&token=x")).toBeNull();
  });

  test("a Don't ask me again link is signed for its address and purpose", () => {
    const token = dontAskAgainToken("Someone@Example.com");
    const read = (email: string, given: string) =>
      readDontAskAgainLink(new URLSearchParams({ email, token: given }));
    expect(read("someone@example.com", token)).not.toBeNull();
    expect(read("other@example.com", token)).toBeNull();
    expect(read("someone@example.com", flip(token))).toBeNull();
    expect(read("someone@example.com", resubscribeToken("someone@example.com", 1))).toBeNull();
  });
});
