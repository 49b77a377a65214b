import { comparableEmail } from "~/platform/email-address";
import {
  consumeRateLimit,
  consumeRateLimits,
  type RateLimit,
  type RateLimitVerdict,
  retryAfterMessage,
} from "~/platform/rate-limit.server";
import { clientIp } from "~/platform/request-info.server";

/**
 * How often each endpoint that sends mail may do so, per address (the inbox
 * that would receive it, or the sender's account) and per client. Taken
 * before anything is looked up or sent, and whether or not an account exists,
 * so a refusal tells nothing about who has one. The numbers are in
 * docs/decisions/0042-mail-limits.md.
 */
const HOUR = 60 * 60;

export type MailEndpoint =
  | "sign-up"
  | "password-reset"
  | "verification"
  | "test-email"
  | "reauthentication"
  | "security-notice"
  | "save-by-email-answer"
  | "answers-to-sender"
  | "waiting-reminder"
  | "welcome";

const PER_ADDRESS_PER_HOUR = 3;
const PER_CLIENT_PER_HOUR = 10;

/**
 * Notices of credential changes go to the account's own address, one per
 * change: more than the links someone asks for, still bounded
 * (docs/decisions/0109-credential-change-notices.md).
 */
const SECURITY_NOTICES_PER_ACCOUNT_PER_HOUR = 10;

/**
 * Answers to mail saved by e-mail go to the account's own address, one per
 * message; past this, messages are still saved but not answered
 * (docs/decisions/0158-save-by-email.md).
 */
const SAVE_ANSWERS_PER_ACCOUNT_PER_HOUR = 20;

/**
 * Recipients' answers gathered for their sender: a daily e-mail and, for
 * folders that ask, one per note; past this, they wait for the next hour
 * (docs/decisions/0166-answers-reach-the-sender-by-mail.md).
 */
const ANSWER_MAILS_PER_ACCOUNT_PER_HOUR = 20;

/**
 * The day-before reminders of items waiting for a note, one per folder
 * occurrence; past this, they wait for the next hour
 * (docs/decisions/0198-waiting-items-reminder.md).
 */
const WAITING_REMINDERS_PER_ACCOUNT_PER_HOUR = 20;

/**
 * Welcomes to new recipients, one per mailbox a sender adds to a folder
 * (docs/decisions/0208-a-welcome-before-the-first-issue.md): a free account's
 * five folders of five recipients go in one hour; past it, they wait. The
 * recipient's mailbox has the per-address limit too, whoever adds it.
 */
const WELCOMES_PER_ACCOUNT_PER_HOUR = 25;

/** Sent from a signed-in account to its own address: the account's limit bounds them. */
const SIGNED_IN_ENDPOINTS: readonly MailEndpoint[] = [
  "test-email",
  "reauthentication",
  "security-notice",
  "save-by-email-answer",
  "answers-to-sender",
  "waiting-reminder",
];

function limitsFor(endpoint: MailEndpoint): { address: RateLimit; client: RateLimit } {
  return {
    address: {
      name: `mail:${endpoint}:address`,
      points:
        endpoint === "security-notice"
          ? SECURITY_NOTICES_PER_ACCOUNT_PER_HOUR
          : endpoint === "save-by-email-answer"
            ? SAVE_ANSWERS_PER_ACCOUNT_PER_HOUR
            : endpoint === "answers-to-sender"
              ? ANSWER_MAILS_PER_ACCOUNT_PER_HOUR
              : endpoint === "waiting-reminder"
                ? WAITING_REMINDERS_PER_ACCOUNT_PER_HOUR
                : endpoint === "welcome"
                  ? WELCOMES_PER_ACCOUNT_PER_HOUR
                  : PER_ADDRESS_PER_HOUR,
      durationSeconds: HOUR,
    },
    client: { name: `mail:${endpoint}:client`, points: PER_CLIENT_PER_HOUR, durationSeconds: HOUR },
  };
}

/**
 * Takes one point for `address` (an e-mail address or "user:<id>") and one
 * for the client. Returns null when the mail may go, else the message for
 * the person: "Please try again in N minutes."
 */
export async function refuseMailBurst(
  endpoint: MailEndpoint,
  request: Request,
  address: string,
): Promise<string | null> {
  const limits = limitsFor(endpoint);
  // Send me a test and the account's own notices come from a signed-in
  // account: its own limit bounds them, and a per-client one would only stop
  // people who share an address (an office, a family).
  const signedIn = SIGNED_IN_ENDPOINTS.includes(endpoint);
  const verdict: RateLimitVerdict = await consumeRateLimits([
    { limit: limits.address, key: comparableEmail(address) },
    { limit: limits.client, key: signedIn ? null : clientIp(request) },
  ]);
  return verdict.allowed ? null : retryAfterMessage(verdict.retryAfterSeconds);
}

/**
 * Mail the app sends on its own to an account's address (no request behind
 * it, so no client to count): takes one point of the account's limit.
 * Returns null when the mail may go, else the seconds to wait.
 */
export async function refuseAccountMail(
  endpoint: "answers-to-sender" | "waiting-reminder",
  address: string,
): Promise<number | null> {
  const verdict = await consumeRateLimit(limitsFor(endpoint).address, comparableEmail(address));
  return verdict.allowed ? null : verdict.retryAfterSeconds;
}

/**
 * Mail the app sends on its own, in an account's name, to someone else's
 * address (a welcome): one point of the account's limit and one of the
 * per-address limit, keyed by the recipient's mailbox. Returns null when the
 * mail may go, else the seconds to wait.
 */
export async function refuseMailForOthers(
  endpoint: "welcome",
  account: string,
  recipientMailbox: string,
): Promise<number | null> {
  const verdict = await consumeRateLimits([
    { limit: limitsFor(endpoint).address, key: account },
    {
      limit: {
        name: `mail:${endpoint}:recipient`,
        points: PER_ADDRESS_PER_HOUR,
        durationSeconds: HOUR,
      },
      key: recipientMailbox,
    },
  ]);
  return verdict.allowed ? null : verdict.retryAfterSeconds;
}
