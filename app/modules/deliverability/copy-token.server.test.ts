import { describe, expect, test } from "vitest";
import { copyHeaders, copyToken, copyTokensIn, readCopyToken } from "./copy-token.server";

test("a token names its copy, and nothing else reads as one", () => {
  const token = copyToken(42);
  expect(token).toMatch(/^c42-[0-9a-f]{24}$/);
  expect(readCopyToken(token)).toBe(42);
  expect(readCopyToken(token.toUpperCase())).toBe(42);
  // Another copy's id with this copy's mac, a changed mac, or bare ids are forgeries.
  expect(readCopyToken(token.replace("c42-", "c43-"))).toBeNull();
  expect(readCopyToken(`${token.slice(0, -1)}${token.endsWith("0") ? "1" : "0"}`)).toBeNull();
  expect(readCopyToken("c42")).toBeNull();
  expect(readCopyToken("")).toBeNull();
});

test("tokens are found inside a VERP address and a returned message's headers; forged ones are skipped", () => {
  const forged = copyToken(7).replace("c7-", "c8-");
  const text = `Return-Path: <bounces+${copyToken(7)}@bounce.example.com>\nX-Thoughtfully-Copy: ${forged}\nX-Other: ${copyToken(9)}`;
  expect(copyTokensIn(text)).toEqual([7, 9]);
});

describe("the copy's headers: its own, and only the configured relay's", () => {
  const RELAY_HEADER_NAMES = [
    "X-PM-Metadata-thoughtfully_copy",
    "X-Mailgun-Variables",
    "X-SMTPAPI",
  ];
  const relayHeaders = (headers: Record<string, string>) =>
    Object.keys(headers).filter((name) => RELAY_HEADER_NAMES.includes(name));

  test("Postmark: its metadata header", () => {
    const headers = copyHeaders(5, "postmark");
    expect(headers).toEqual({
      "X-Thoughtfully-Copy": copyToken(5),
      "X-PM-Metadata-thoughtfully_copy": copyToken(5),
    });
  });

  test("Mailgun: its variables", () => {
    const headers = copyHeaders(5, "mailgun");
    expect(relayHeaders(headers)).toEqual(["X-Mailgun-Variables"]);
    expect(headers["X-Thoughtfully-Copy"]).toBe(copyToken(5));
    expect(JSON.parse(headers["X-Mailgun-Variables"]!)).toEqual({
      thoughtfully_copy: copyToken(5),
    });
  });

  test("SendGrid: its unique arguments", () => {
    const headers = copyHeaders(5, "sendgrid");
    expect(relayHeaders(headers)).toEqual(["X-SMTPAPI"]);
    expect(headers["X-Thoughtfully-Copy"]).toBe(copyToken(5));
    expect(JSON.parse(headers["X-SMTPAPI"]!)).toEqual({
      unique_args: { thoughtfully_copy: copyToken(5) },
    });
  });

  test("no relay of ours (Amazon SES, any other server): the copy's own header alone", () => {
    expect(copyHeaders(5, "none")).toEqual({ "X-Thoughtfully-Copy": copyToken(5) });
  });

  test("by default, the relay the environment names: none without SMTP_URL", () => {
    expect(copyHeaders(5)).toEqual({ "X-Thoughtfully-Copy": copyToken(5) });
  });
});
