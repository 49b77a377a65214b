import { expect, test } from "vitest";
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

test("every relay's header carries the same token", () => {
  const token = copyToken(5);
  const headers = copyHeaders(5);
  expect(headers["X-Thoughtfully-Copy"]).toBe(token);
  expect(headers["X-PM-Metadata-thoughtfully_copy"]).toBe(token);
  expect(JSON.parse(headers["X-Mailgun-Variables"]!)).toEqual({ thoughtfully_copy: token });
  expect(JSON.parse(headers["X-SMTPAPI"]!)).toEqual({ unique_args: { thoughtfully_copy: token } });
});
