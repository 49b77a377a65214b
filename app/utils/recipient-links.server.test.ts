import { describe, expect, test } from "vitest";
import {
  compactUnsubscribeUrl,
  expandUnsubscribeCode,
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
