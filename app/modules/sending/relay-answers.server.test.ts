import nodemailer from "nodemailer";
import { afterAll, describe, expect, test } from "vitest";
import { MisbehavingRelay, type RelayStage } from "#tests/support/misbehaving-relay";
import { readRelayAnswer, type Stage, type Verdict } from "./relay-answers.server";

/** An error as nodemailer makes it at `command`, with the relay's `response` when it gave one. */
function failure(code: string, command: string, response?: string) {
  const responseCode = response ? Number(response.slice(0, 3)) : undefined;
  return Object.assign(new Error(response ? `Failed: ${response}` : "Failed"), {
    code,
    command,
    response,
    responseCode,
  });
}

type Row = [command: string, code: string, response: string | undefined, stage: Stage, Verdict];

const rows: Row[] = [
  // The greeting, or a reply the relay closed the connection with.
  ["CONN", "ECONNECTION", undefined, "connection", "retry"],
  ["CONN", "ETIMEDOUT", undefined, "connection", "retry"],
  ["CONN", "EPROTOCOL", "421 4.7.0 Too many connections, try later", "connection", "retry"],
  ["CONN", "EPROTOCOL", "554 5.7.1 Your IP 192.0.2.7 is on our blocklist", "connection", "relay"],
  ["CONN", "EPROTOCOL", "554 No SMTP service here", "connection", "relay"],
  ["CONN", "ECONNECTION", "550 5.1.1 closing", "connection", "relay"],
  // EHLO and the HELO a client falls back to.
  ["EHLO", "ECONNECTION", "421 Service not available", "EHLO", "retry"],
  ["HELO", "EPROTOCOL", "554 5.7.1 Go away", "EHLO", "relay"],
  ["HELO", "EPROTOCOL", "550 Access denied", "EHLO", "relay"],
  ["STARTTLS", "ETLS", "454 TLS not available", "STARTTLS", "retry"],
  ["STARTTLS", "ETLS", "554 5.7.3 TLS refused", "STARTTLS", "relay"],
  // Credentials.
  ["AUTH PLAIN", "EAUTH", "454 4.7.0 Temporary authentication failure", "AUTH", "retry"],
  ["AUTH PLAIN", "EAUTH", "535 5.7.8 Authentication credentials invalid", "AUTH", "relay"],
  ["AUTH LOGIN", "EAUTH", "535 Incorrect authentication data", "AUTH", "relay"],
  ["AUTH PLAIN", "EAUTH", "530 5.7.0 Authentication required", "AUTH", "relay"],
  ["AUTH CRAM-MD5", "EAUTH", "534 5.7.9 Mechanism too weak", "AUTH", "relay"],
  ["AUTH PLAIN", "EAUTH", "535 5.7.13 User account disabled", "AUTH", "relay"],
  ["API", "EAUTH", undefined, "sending", "relay"],
  // Our sender address.
  ["MAIL FROM", "EENVELOPE", "451 4.3.0 Try again", "MAIL FROM", "retry"],
  ["MAIL FROM", "EENVELOPE", "421 4.4.2 Timeout", "MAIL FROM", "retry"],
  [
    "MAIL FROM",
    "EENVELOPE",
    "553 Sender address not allowed: account suspended",
    "MAIL FROM",
    "relay",
  ],
  [
    "MAIL FROM",
    "EENVELOPE",
    "553 5.7.1 Sender address rejected: not owned by user",
    "MAIL FROM",
    "relay",
  ],
  ["MAIL FROM", "EENVELOPE", "550 5.1.8 Sender domain does not exist", "MAIL FROM", "relay"],
  ["MAIL FROM", "EENVELOPE", "550 5.1.1 Mailbox unknown", "MAIL FROM", "relay"],
  ["MAIL FROM", "EENVELOPE", "554 5.7.1 Account over quota", "MAIL FROM", "relay"],
  ["MAIL FROM", "EENVELOPE", "530 5.7.0 Authentication required", "MAIL FROM", "relay"],
  ["MAIL FROM", "EENVELOPE", "552 Message size exceeds fixed maximum", "MAIL FROM", "message"],
  ["MAIL FROM", "EENVELOPE", "552 5.3.4 Message too big for system", "MAIL FROM", "message"],
  ["MAIL FROM", "EENVELOPE", "552 5.2.3 Message length exceeds limit", "MAIL FROM", "message"],
  ["MAIL FROM", "EENVELOPE", "552 5.7.0 Daily sending quota exceeded", "MAIL FROM", "relay"],
  ["MAIL FROM", "EMESSAGE", undefined, "MAIL FROM", "message"],
  ["MAIL FROM", "EENVELOPE", "503 5.5.1 Nested MAIL command", "MAIL FROM", "retry"],
  // The recipient.
  ["RCPT TO", "EENVELOPE", "450 4.2.1 Mailbox busy", "RCPT TO", "retry"],
  ["RCPT TO", "EENVELOPE", "452 4.5.3 Too many recipients", "RCPT TO", "retry"],
  ["RCPT TO", "EENVELOPE", "550 Mailbox unavailable", "RCPT TO", "bounce"],
  ["RCPT TO", "EENVELOPE", "550 5.1.1 No such user here", "RCPT TO", "bounce"],
  ["RCPT TO", "EENVELOPE", "550 5.1.2 Bad destination system address", "RCPT TO", "bounce"],
  ["RCPT TO", "EENVELOPE", "553 5.1.3 Bad destination mailbox address syntax", "RCPT TO", "bounce"],
  ["RCPT TO", "EENVELOPE", "551 5.1.6 User has moved", "RCPT TO", "bounce"],
  ["RCPT TO", "EENVELOPE", "556 5.1.10 Recipient address has null MX", "RCPT TO", "bounce"],
  ["RCPT TO", "EENVELOPE", "550 5.2.1 Mailbox disabled", "RCPT TO", "bounce"],
  ["RCPT TO", "EENVELOPE", "552 5.2.2 Mailbox full", "RCPT TO", "bounce"],
  [
    "RCPT TO",
    "EENVELOPE",
    "550 5.4.1 Recipient address rejected: Access denied",
    "RCPT TO",
    "bounce",
  ],
  ["RCPT TO", "EENVELOPE", "550 5.7.17 Mailbox owner has changed", "RCPT TO", "bounce"],
  ["RCPT TO", "EENVELOPE", "550 5.7.18 Domain owner has changed", "RCPT TO", "bounce"],
  ["RCPT TO", "EENVELOPE", "550 5.7.1 Sender not authorized", "RCPT TO", "relay"],
  ["RCPT TO", "EENVELOPE", "554 5.7.1 <a@b.example>: Relay access denied", "RCPT TO", "relay"],
  ["RCPT TO", "EENVELOPE", "554 5.7.1 Client host rejected: blocked", "RCPT TO", "relay"],
  ["RCPT TO", "EENVELOPE", "550 5.1.7 Bad sender mailbox syntax", "RCPT TO", "relay"],
  [
    "RCPT TO",
    "EENVELOPE",
    "553 5.1.8 Sender address rejected: Domain not found",
    "RCPT TO",
    "relay",
  ],
  ["RCPT TO", "EENVELOPE", "552 5.3.4 Message too big for system", "RCPT TO", "message"],
  ["RCPT TO", "EENVELOPE", "552 5.2.3 Message too long for this mailbox", "RCPT TO", "message"],
  ["RCPT TO", "EENVELOPE", "554 5.3.2 System not accepting messages", "RCPT TO", "relay"],
  ["RCPT TO", "EENVELOPE", "501 5.5.4 Invalid arguments", "RCPT TO", "relay"],
  ["RCPT TO", "EENVELOPE", "553 5.6.7 Non-ASCII addresses not permitted", "RCPT TO", "relay"],
  // An enhanced code of another class than the reply's is no guide: the reply alone decides.
  ["RCPT TO", "EENVELOPE", "550 4.7.1 Sender not authorized", "RCPT TO", "bounce"],
  ["RCPT TO", "EENVELOPE", "550 5.7.1x Sender not authorized", "RCPT TO", "bounce"],
  // The DATA command and the message's end.
  ["DATA", "EENVELOPE", "451 4.3.0 Local error", "DATA", "retry"],
  ["DATA", "EENVELOPE", "554 5.5.1 No valid recipients", "DATA", "message"],
  ["DATA", "EENVELOPE", "554 Transaction failed", "DATA", "message"],
  ["DATA", "EMESSAGE", "451 4.7.1 Greylisted", "end of DATA", "retry"],
  [
    "DATA",
    "EMESSAGE",
    "552 Message size exceeds fixed maximum message size",
    "end of DATA",
    "message",
  ],
  ["DATA", "EMESSAGE", "552 5.3.4 Message too big for system", "end of DATA", "message"],
  ["DATA", "EMESSAGE", "554 5.7.1 Message rejected as spam", "end of DATA", "message"],
  [
    "DATA",
    "EMESSAGE",
    "550 5.7.26 Unauthenticated mail is prohibited (DMARC)",
    "end of DATA",
    "message",
  ],
  ["DATA", "EMESSAGE", "554 5.6.0 Content rejected", "end of DATA", "message"],
  [
    "DATA",
    "EMESSAGE",
    "554 Message rejected: Email address is not verified",
    "end of DATA",
    "message",
  ],
  ["DATA", "EMESSAGE", "550 Mailbox unavailable", "end of DATA", "message"],
  ["DATA", "EMESSAGE", "550 5.1.1 No such user here", "end of DATA", "bounce"],
  ["DATA", "EMESSAGE", "552 5.2.2 Mailbox full", "end of DATA", "bounce"],
  // Nothing nodemailer tells: not an SMTP error at all.
  ["", "ENOENT", undefined, "sending", "retry"],
];

describe("readRelayAnswer", () => {
  test.each(rows)("%s %s %s: %s, %s", (command, code, response, stage, verdict) => {
    const answer = readRelayAnswer(failure(code, command, response));
    expect(answer).toMatchObject({ stage, verdict });
    expect(answer.words).toBe(response ?? "Failed");
  });

  test("a refusal of us counts as the copy's try only once a recipient was named", () => {
    const tries = (command: string, code: string, response?: string) =>
      readRelayAnswer(failure(code, command, response)).countsAsTry;
    expect(tries("CONN", "EPROTOCOL", "554 Blocked")).toBe(false);
    expect(tries("AUTH PLAIN", "EAUTH", "535 5.7.8 Bad")).toBe(false);
    expect(tries("MAIL FROM", "EENVELOPE", "553 Not yours")).toBe(false);
    expect(tries("RCPT TO", "EENVELOPE", "550 5.7.1 Sender not authorized")).toBe(true);
    expect(tries("RCPT TO", "EENVELOPE", "550 5.1.1 No such user")).toBe(true);
    expect(tries("DATA", "EMESSAGE", "552 Too big")).toBe(true);
    expect(tries("CONN", "ECONNECTION")).toBe(true);
  });

  test("words are the relay's, on one line and bounded; without a reply, the error's message", () => {
    const multiline = failure("CONN", "EPROTOCOL", "554-5.7.1 Blocked\n554 5.7.1 See our page");
    expect(readRelayAnswer(multiline).words).toBe("554-5.7.1 Blocked 554 5.7.1 See our page");
    const long = readRelayAnswer(failure("MAIL FROM", "EENVELOPE", `553 ${"x".repeat(1000)}`));
    expect(long.words).toHaveLength(300);
    expect(readRelayAnswer(new Error("The photo's file is missing"))).toMatchObject({
      verdict: "retry",
      words: "The photo's file is missing",
    });
    expect(readRelayAnswer("a string")).toMatchObject({ verdict: "retry", words: "a string" });
  });
});

const relay = new MisbehavingRelay();
const url = await relay.start();
afterAll(() => relay.stop());

/**
 * The same rules on the errors nodemailer itself makes, stage by stage, against a relay that
 * answers as scripted: pins what each stage sets (`command`, `code`, `response`).
 */
describe("nodemailer's own errors, from a misbehaving relay", () => {
  async function refusal(stage: RelayStage, answer: string, to = "mum@example.com") {
    relay.heal().at(stage, { answer });
    const transport = nodemailer.createTransport(
      `${url.replace("smtp://", "smtp://relay-user:relay-pass@")}`,
    );
    try {
      await transport.sendMail({ from: "hello@thoughtfully.test", to, subject: "Hi", text: "Hi" });
    } catch (error) {
      return readRelayAnswer(error);
    } finally {
      transport.close();
    }
    throw new Error(`${stage} "${answer}" was not refused`);
  }

  test.each<[RelayStage, string, Stage, Verdict]>([
    ["greeting", "554 5.7.1 Your IP is blocked", "connection", "relay"],
    ["greeting", "421 Busy, try later", "connection", "retry"],
    ["ehlo", "554 5.7.1 Not you", "EHLO", "relay"],
    ["auth", "535 5.7.8 Authentication credentials invalid", "AUTH", "relay"],
    ["auth", "454 4.7.0 Try later", "AUTH", "retry"],
    ["mailFrom", "553 5.7.1 Sender not allowed", "MAIL FROM", "relay"],
    ["mailFrom", "552 5.3.4 Too big", "MAIL FROM", "message"],
    ["rcptTo", "550 5.1.1 No such user", "RCPT TO", "bounce"],
    ["rcptTo", "550 5.7.1 Sender not authorized", "RCPT TO", "relay"],
    ["rcptTo", "451 4.3.0 Try later", "RCPT TO", "retry"],
    ["dataEnd", "552 Message size exceeds fixed maximum", "end of DATA", "message"],
    ["dataEnd", "550 5.1.1 No such user", "end of DATA", "bounce"],
  ])("%s answering %s", async (stage, answer, readStage, verdict) => {
    expect(await refusal(stage, answer)).toMatchObject({
      stage: readStage,
      verdict,
      words: answer,
    });
  });

  test("a dropped connection is a retry", async () => {
    relay.heal().at("mailFrom", { drop: true });
    const transport = nodemailer.createTransport(url);
    const error = await transport
      .sendMail({ from: "hello@thoughtfully.test", to: "a@example.com", text: "Hi" })
      .catch((caught: unknown) => caught);
    transport.close();
    expect(readRelayAnswer(error)).toMatchObject({ verdict: "retry" });
  });
});
