/**
 * What an SMTP relay's refusal is about, and so what becomes of the copy that met it: read from
 * the stage of the conversation it came at and its codes (RFC 5321's reply code, RFC 3463's
 * enhanced status code when the relay gives one). Only an answer about the recipient's mailbox
 * bounces them (and suppresses the mailbox for every sender); a relay refusing us, or refusing
 * the message, touches no recipient. docs/decisions/0240-every-smtp-answer-read-for-what-it-is-about.md
 *
 * | Stage (nodemailer's `command`)      | no reply, 4xx, 503 | 5xx                                                  |
 * | ----------------------------------- | ------------------ | ---------------------------------------------------- |
 * | greeting or a closing reply (CONN)  | retry              | relay                                                |
 * | EHLO / HELO, STARTTLS, AUTH, RSET   | retry (AUTH: relay when nodemailer itself refuses) | relay                |
 * | MAIL FROM                           | retry (message when over the relay's SIZE) | 552 or X.3.4 / X.2.3: message; else relay |
 * | RCPT TO                             | retry              | no enhanced code, or one about the recipient: bounce; X.3.4 / X.2.3: message; else relay |
 * | DATA, end of DATA                   | retry              | an enhanced code about the recipient: bounce; else message |
 *
 * Enhanced codes about the recipient: X.1.x (their address) but X.1.7 and X.1.8 (the sender's);
 * X.2.x (their mailbox) but X.2.3 (the message too long for it); X.4.x (the route to their
 * domain); X.7.17 and X.7.18 (their mailbox or domain changed hands, RFC 7293). Every other
 * X.7.x is policy about us or the message ("5.7.1 sender not authorized", 5.7.8 bad
 * credentials, 5.7.26 DMARC), X.3.x the relay's system, X.5.x the protocol, X.6.x the content.
 * An enhanced code whose class differs from the reply's is ignored.
 *
 * A throttling answer (421, or a 4xx about our rate: app/platform/relay-pace.server.ts) is a
 * retry that is none of the copy's tries: the copy waits, untouched, for the next pass, while
 * the mailer pauses every send (docs/decisions/0247-one-acceptance-window-per-connection.md).
 */
import { isThrottling } from "~/platform/relay-pace.server";

/** What nodemailer's SMTP errors carry (lib/smtp-connection: `_formatError`). */
type SmtpFailure = {
  /** ECONNECTION, ESOCKET, ETIMEDOUT, EPROTOCOL, EAUTH, EENVELOPE, EMESSAGE, ETLS… */
  code?: string;
  /** The command in flight: "CONN", "EHLO", "AUTH PLAIN", "MAIL FROM", "RCPT TO", "DATA", "API"… */
  command?: string;
  responseCode?: number;
  /** The relay's reply, as it gave it. */
  response?: string;
  message?: string;
};

/**
 * - bounce: the recipient's mailbox refuses for good.
 * - retry: this copy is tried again later (no answer, or a temporary one).
 * - message: the relay refuses this message (its size or content): the send's copies wait
 *   together for their retry; nobody is bounced.
 * - relay: the relay refuses us (our address, credentials, connection or sender): all
 *   sending waits until it answers again; nobody is bounced.
 */
export type Verdict = "bounce" | "retry" | "message" | "relay";

export type Stage =
  | "connection"
  | "EHLO"
  | "STARTTLS"
  | "AUTH"
  | "MAIL FROM"
  | "RCPT TO"
  | "DATA"
  | "end of DATA"
  | "sending";

export type RelayAnswer = {
  verdict: Verdict;
  stage: Stage;
  /**
   * Whether this is one of the copy's tries (its retries are counted). Not so for a refusal of
   * us before any recipient was named: that copy waits for the relay, untouched. At RCPT TO it
   * is, as the refusal could be about that address after all, so one odd address cannot hold
   * all sending for longer than its tries. Nor for a throttling answer: the copy waits,
   * untouched, for the next pass.
   */
  countsAsTry: boolean;
  /** The relay's own reply on one line, or what went wrong when it gave none. */
  words: string;
};

const WORDS_LENGTH = 300;

function stageOf({ command = "", code }: SmtpFailure): Stage {
  const named = command.toUpperCase();
  if (named === "CONN") return "connection";
  if (named === "EHLO" || named === "HELO" || named === "LHLO") return "EHLO";
  if (named === "STARTTLS") return "STARTTLS";
  if (named.startsWith("AUTH")) return "AUTH";
  if (named === "MAIL FROM") return "MAIL FROM";
  if (named === "RCPT TO") return "RCPT TO";
  if (named === "DATA") return code === "EMESSAGE" ? "end of DATA" : "DATA";
  return "sending";
}

type Enhanced = { subject: number; detail: number };

/** "550 5.1.1 No such user" → { subject: 1, detail: 1 }, when its class is the reply's. */
function enhancedOf(response: string | undefined, reply: number): Enhanced | null {
  const match = /^\d{3}[ -]([245])\.(\d{1,3})\.(\d{1,3})(?!\S)/.exec(response?.trim() ?? "");
  if (!match || Number(match[1]) !== Math.floor(reply / 100)) return null;
  return { subject: Number(match[2]), detail: Number(match[3]) };
}

function aboutTheRecipient({ subject, detail }: Enhanced) {
  switch (subject) {
    case 1:
      return detail !== 7 && detail !== 8;
    case 2:
      return detail !== 3;
    case 4:
      return true;
    case 7:
      return detail === 17 || detail === 18;
    default:
      return false;
  }
}

function aboutTheSize({ subject, detail }: Enhanced) {
  return (subject === 3 && detail === 4) || (subject === 2 && detail === 3);
}

function verdictOf(stage: Stage, failure: SmtpFailure): Verdict {
  const reply = failure.responseCode;
  if (reply === undefined) {
    // nodemailer's own refusals, before the relay is asked: no credentials it can use, or a
    // message over the size the relay announced.
    if (failure.code === "EAUTH") return "relay";
    if (failure.code === "EMESSAGE" && stage === "MAIL FROM") return "message";
    return "retry";
  }
  // 503 is a command out of sequence: the session's state, not a refusal (nodemailer reads it so).
  if (reply < 500 || reply >= 600 || reply === 503) return "retry";
  const enhanced = enhancedOf(failure.response, reply);
  switch (stage) {
    case "MAIL FROM":
      return (enhanced ? aboutTheSize(enhanced) : reply === 552) ? "message" : "relay";
    case "RCPT TO":
      if (!enhanced || aboutTheRecipient(enhanced)) return "bounce";
      return aboutTheSize(enhanced) ? "message" : "relay";
    case "DATA":
    case "end of DATA":
      return enhanced && aboutTheRecipient(enhanced) ? "bounce" : "message";
    default:
      return "relay";
  }
}

function wordsOf(failure: SmtpFailure, error: unknown) {
  const said = failure.response ?? failure.message ?? String(error);
  const line = said.replace(/\s+/g, " ").trim();
  return line.length > WORDS_LENGTH ? `${line.slice(0, WORDS_LENGTH - 1)}…` : line;
}

/** Reads a failed send's error (nodemailer's, or any other) for what it is about. */
export function readRelayAnswer(error: unknown): RelayAnswer {
  const failure: SmtpFailure = typeof error === "object" && error !== null ? error : {};
  const stage = stageOf(failure);
  const verdict = verdictOf(stage, failure);
  return {
    verdict,
    stage,
    countsAsTry: !isThrottling(failure) && (verdict !== "relay" || stage === "RCPT TO"),
    words: wordsOf(failure, error),
  };
}
