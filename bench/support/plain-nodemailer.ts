import type { Transporter } from "nodemailer";
import type Mail from "nodemailer/lib/mailer";
import type { AcceptanceTurn } from "~/modules/sending/acceptance-turn.server";

/**
 * Plain nodemailer, the benches' yardstick: one pre-rendered message sent
 * again and again on the production transport, one at a time or several in
 * flight; and "in turns", the floor that exactly once sets: several in
 * flight, but each message's last byte waits for an acceptance window, given
 * back only once `mark` (a one-row write and its fsync) is done, as the send
 * engine's windows are (app/modules/sending/acceptance-turn.server.ts), with
 * none of the engine's own work.
 */
export function plainNodemailer(
  transport: Transporter,
  message: Mail.Options,
  inTurns?: { turn: () => AcceptanceTurn; mark: () => Promise<unknown> },
) {
  const oneAtATime = async (count: number) => {
    for (let index = 0; index < count; index++) await transport.sendMail({ ...message });
  };
  const oneAtATimeInTurns = async (count: number) => {
    if (!inTurns) throw new Error("No turns to send in");
    for (let index = 0; index < count; index++) {
      const turn = inTurns.turn();
      try {
        // waitBeforeEnd: read by createSmtpTransport's stream plugin (app/platform/mailer.server.ts).
        await transport.sendMail({ ...message, waitBeforeEnd: turn.take } as Mail.Options);
        await inTurns.mark();
      } finally {
        turn.giveBack();
      }
    }
  };
  const side = (send: (count: number) => Promise<void>) => (count: number, inFlight: number) =>
    Promise.all(
      Array.from({ length: inFlight }, (_, lane) =>
        // The count split over the lanes, the remainder to the first.
        send(Math.floor(count / inFlight) + (lane === 0 ? count % inFlight : 0)),
      ),
    ).then(() => undefined);
  return { oneAtATime, inFlight: side(oneAtATime), inTurns: side(oneAtATimeInTurns) };
}
