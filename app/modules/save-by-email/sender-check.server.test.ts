import type { AuthenticateResult } from "mailauth";
import { describe, expect, test } from "vitest";
import { judge } from "./sender-check.server";

type Results = Pick<AuthenticateResult, "dkim" | "spf" | "dmarc">;

function results({
  dmarc,
  dkimDomain,
  dkim = "pass",
  spf = "fail",
  spfDomain = "family.test",
}: {
  dmarc?: { result: string; dkimAligned: boolean };
  dkimDomain?: string;
  dkim?: string;
  spf?: string;
  spfDomain?: string;
}): Results {
  return {
    dkim: {
      results: dkimDomain ? [{ signingDomain: dkimDomain, status: { result: dkim } }] : [],
    },
    spf: { domain: spfDomain, status: { result: spf } },
    dmarc: dmarc
      ? {
          status: { result: dmarc.result },
          alignment: { dkim: { result: dmarc.dkimAligned ? "family.test" : false } },
        }
      : false,
  } as unknown as Results;
}

describe("judge", () => {
  test("a DMARC pass is authentic; over a webhook only through DKIM", () => {
    const viaDkim = results({ dmarc: { result: "pass", dkimAligned: true } });
    const viaSpf = results({ dmarc: { result: "pass", dkimAligned: false } });
    expect(judge(viaDkim, "family.test", { spfCounts: false }).authentic).toBe(true);
    expect(judge(viaSpf, "family.test", { spfCounts: true }).authentic).toBe(true);
    expect(judge(viaSpf, "family.test", { spfCounts: false }).authentic).toBe(false);
  });

  test("a DMARC failure is refused, whatever else passes", () => {
    const failed = results({
      dmarc: { result: "fail", dkimAligned: false },
      dkimDomain: "family.test",
      spf: "pass",
    });
    expect(judge(failed, "family.test", { spfCounts: true })).toEqual({
      authentic: false,
      reason: "DMARC fail",
    });
  });

  test("without a DMARC policy, DKIM or SPF must pass for the From's own domain", () => {
    const none = { result: "none", dkimAligned: false };
    expect(
      judge(results({ dmarc: none, dkimDomain: "family.test" }), "family.test", {
        spfCounts: false,
      }).authentic,
    ).toBe(true);
    expect(
      judge(results({ dmarc: none, dkimDomain: "mailer.example" }), "family.test", {
        spfCounts: false,
      }).authentic,
    ).toBe(false);
    expect(
      judge(results({ dmarc: none, dkimDomain: "family.test", dkim: "fail" }), "family.test", {
        spfCounts: true,
      }).authentic,
    ).toBe(false);
    expect(
      judge(results({ dmarc: none, spf: "pass" }), "family.test", { spfCounts: true }).authentic,
    ).toBe(true);
    expect(
      judge(results({ dmarc: none, spf: "pass" }), "family.test", { spfCounts: false }).authentic,
    ).toBe(false);
    expect(
      judge(results({ dmarc: none, spf: "pass", spfDomain: "other.test" }), "family.test", {
        spfCounts: true,
      }).authentic,
    ).toBe(false);
  });
});
