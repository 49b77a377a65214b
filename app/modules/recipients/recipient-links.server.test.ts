import { describe, expect, test } from "vitest";
import {
  compactUnsubscribeUrl,
  expandUnsubscribeCode,
  issueLinkCode,
  readIssueLinkCode,
  resubscribeToken,
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
