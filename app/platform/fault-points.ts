/**
 * The named points of a send where the crash tests stop the sending process
 * (THOUGHTFULLY_FAULT_POINT, honoured only with NODE_ENV=test; see
 * app/platform/fault-points.server.ts). In the order a send reaches them;
 * then those of the answer mail (app/modules/answers/answer-mail.server.ts)
 * of the waiting items' reminder (app/modules/sending/waiting-reminders.server.ts)
 * and of the welcome (app/modules/sending/welcomes.server.ts).
 */
export const SEND_FAULT_POINTS = [
  /** A ledger and its recipients are written; nobody holds its claim yet. */
  "ledger-opened",
  /** The claim is taken; nothing sent. */
  "claimed",
  /** A message is about to be handed to the SMTP server. */
  "before-smtp",
  /** The SMTP server answered "250"; the recipient is not yet recorded as sent. */
  "smtp-accepted",
  /** The recipient is recorded as sent. */
  "recipient-recorded",
  /** No recipient is left to send to; the ledger is not finished. */
  "before-finish",
  /** The ledger is finished (items sent, folder moved on); the items' files are not yet released. */
  "finished",
  /** Files released; the claim-holding code has not yet returned. */
  "before-release",
  /** Answer mail: due answers point at their new digests; nothing sent. */
  "answers-claimed",
  /** Answer mail: the SMTP server accepted a digest; it is not yet marked sent. */
  "answer-mail-accepted",
  /** Waiting items' reminder: the day's reminders are claimed; nothing sent. */
  "waiting-reminders-claimed",
  /** Waiting items' reminder: the SMTP server accepted one; it is not yet marked sent. */
  "waiting-reminder-accepted",
  /** Welcome: the SMTP server accepted one; it is not yet marked sent. */
  "welcome-accepted",
] as const;

export type SendFaultPoint = (typeof SEND_FAULT_POINTS)[number];
