import fs from "node:fs";
import { PassThrough } from "node:stream";
import type { SMTPServerDataStream, SMTPServerOptions, SMTPServerSession } from "smtp-server";
import { LIMITS } from "~/modules/plans/limits";
import { clientShareKey } from "~/platform/client-address";
import { DiskReserveReachedError } from "~/platform/disk-reserve.server";
import { env } from "~/platform/env.server";
import { isMemoryBudgetSpent } from "~/platform/memory-budget.server";
import { consumeRateLimit } from "~/platform/rate-limit.server";
import { runInRequestContext } from "~/platform/request-context.server";
import {
  type SpooledFile,
  SpoolFullError,
  SpoolTooLargeError,
  spoolToFile,
} from "~/platform/spool.server";
import { receiveMail } from "./save-by-email.server";
import { recipientRefusal } from "./smtp-envelope.server";
import {
  FairShareSmtpServer,
  SessionEndedError,
  SMTP_SESSION_LIMITS,
  type SmtpSessionLimits,
} from "./smtp-fair-share.server";

/**
 * The optional SMTP receiver for a self-hosted deployment: mail for
 * INBOUND_EMAIL_DOMAIN straight from the sender's mail server, in the same
 * process (docs/decisions/0158-save-by-email.md). It takes mail only for
 * folders' addresses and from their owners' own addresses (others are
 * refused at RCPT TO, before any data: docs/decisions/0177-smtp-envelope-judged-at-rcpt.md),
 * writes a message to the spool as it arrives and stops past the size limit,
 * parses it only with room in the memory budget
 * (docs/decisions/0178-smtp-mail-spooled-and-parsed-under-the-memory-budget.md),
 * gives each client a few sessions of bounded time (./smtp-fair-share.server.ts),
 * offers STARTTLS with a configured certificate, and never relays or
 * authenticates.
 */
const CONNECTIONS_PER_CLIENT = { name: "smtp:client", points: 60, durationSeconds: 60 * 60 };
const MAX_RECIPIENTS = 5;

function smtpError(responseCode: number, message: string) {
  return Object.assign(new Error(message), { responseCode });
}

function tlsOptions(): Partial<SMTPServerOptions> {
  if (!env.INBOUND_SMTP_TLS_KEY || !env.INBOUND_SMTP_TLS_CERT) {
    return { disabledCommands: ["AUTH", "STARTTLS"], hideSTARTTLS: true };
  }
  return {
    disabledCommands: ["AUTH"],
    key: fs.readFileSync(env.INBOUND_SMTP_TLS_KEY),
    cert: fs.readFileSync(env.INBOUND_SMTP_TLS_CERT),
  };
}

const MAX_BYTES = LIMITS.saveByEmail.maxMessageBytes;

/**
 * The message, written to a spooled file as it arrives. Past the size, or
 * with the spool full, the rest of DATA is still read (to nowhere): smtp-server
 * answers only once the message's end has come.
 */
async function spoolData(stream: SMTPServerDataStream): Promise<SpooledFile> {
  const arriving = new PassThrough();
  // A client gone mid-message: smtp-server destroys its stream, with this error once listened to.
  stream.on("error", (error) => arriving.destroy(error));
  stream.pipe(arriving);
  try {
    return await spoolToFile(arriving, { maxBytes: MAX_BYTES });
  } catch (error) {
    stream.unpipe(arriving);
    stream.resume();
    throw error;
  }
}

async function takeMessage(stream: SMTPServerDataStream, session: SMTPServerSession) {
  const file = await spoolData(stream);
  try {
    const mailFrom = session.envelope.mailFrom;
    // The security records name this session the way they name a request.
    const request = new Request(`${env.APP_URL}/smtp`, { method: "POST" });
    await runInRequestContext({ peerAddress: session.remoteAddress }, () =>
      receiveMail({
        raw: file,
        recipients: session.envelope.rcptTo.map((rcpt) => rcpt.address),
        transport: {
          ip: session.remoteAddress,
          helo: session.hostNameAppearsAs,
          mailFrom: mailFrom ? mailFrom.address : "",
        },
        request,
      }),
    );
  } finally {
    await file.remove();
  }
}

/** What the client is told when a message was not taken; anything else it is told is 250. */
function dataRefusal(error: unknown) {
  // Already told (421), as its session was ended.
  if (error instanceof SessionEndedError) return smtpError(421, error.message);
  if (error instanceof SpoolTooLargeError) return smtpError(552, "Message too large");
  if (error instanceof SpoolFullError || isMemoryBudgetSpent(error)) {
    return smtpError(452, "Too busy to read it now, try later");
  }
  // An attachment would have used the disk's reserve for the database: the sender's server retries.
  if (error instanceof DiskReserveReachedError) {
    return smtpError(452, "Insufficient system storage, try later");
  }
  if ((error as { code?: string }).code !== "ECONNECTION") {
    console.error("[smtp] could not save a message", error);
  }
  return smtpError(451, "Temporary failure, try again later");
}

/** The receiver; `limits` replace SMTP_SESSION_LIMITS' (a test's short deadlines). */
export function createSmtpReceiver(limits: Partial<SmtpSessionLimits> = {}): FairShareSmtpServer {
  return new FairShareSmtpServer(
    {
      ...tlsOptions(),
      name: env.INBOUND_EMAIL_DOMAIN,
      banner: "Thoughtfully saves mail for its folders' addresses only",
      authOptional: true,
      // Behind Fly's proxy every peer is the proxy: the header names the sender, for SPF and the limits.
      useProxy: env.INBOUND_SMTP_PROXY_PROTOCOL,
      size: MAX_BYTES,
      // Each session holds a few stream buffers; its message is on disk, its parse under the budget.
      // All of them, whoever holds them; one client holds SMTP_SESSION_LIMITS.sessionsPerClient at most.
      maxClients: 20,
      closeTimeout: 10_000,
      // Nothing reads the client's reverse name (SPF, DKIM and DMARC need only its address), and
      // a name server the client runs could hold each connection 1.5 s before it is greeted.
      disableReverseLookup: true,
      logger: false,
      onConnect(session, callback) {
        consumeRateLimit(CONNECTIONS_PER_CLIENT, clientShareKey(session.remoteAddress)).then(
          (verdict) =>
            callback(
              verdict.allowed ? undefined : smtpError(421, "Too many connections, try later"),
            ),
          () => callback(smtpError(451, "Temporary failure, try later")),
        );
      },
      onRcptTo(address, session, callback) {
        if (session.envelope.rcptTo.length >= MAX_RECIPIENTS) {
          return callback(smtpError(452, "Too many recipients"));
        }
        const mailFrom = session.envelope.mailFrom ? session.envelope.mailFrom.address : "";
        recipientRefusal(address.address, mailFrom, clientShareKey(session.remoteAddress)).then(
          (refusal) =>
            callback(refusal ? smtpError(refusal.responseCode, refusal.message) : undefined),
          () => callback(smtpError(451, "Temporary failure, try later")),
        );
      },
      onData(stream, session, callback) {
        // Accepted whatever became of it once read: a refusal after reading would
        // make the sending server bounce to an address that may be forged.
        takeMessage(stream, session).then(
          () => callback(),
          (error) => callback(dataRefusal(error)),
        );
      },
    },
    { ...SMTP_SESSION_LIMITS, ...limits },
  );
}

/** Listens when INBOUND_SMTP_PORT is set; resolves with a function that stops it. */
export async function startSmtpReceiver(): Promise<(() => Promise<void>) | null> {
  if (!env.INBOUND_SMTP_PORT || !env.INBOUND_EMAIL_DOMAIN) return null;
  const server = createSmtpReceiver();
  server.on("error", (error) => console.error("[smtp] receiver error", error));
  await new Promise<void>((resolve) =>
    server.listen(env.INBOUND_SMTP_PORT, env.INBOUND_SMTP_HOST, resolve),
  );
  console.info(
    `[smtp] receiving for ${env.INBOUND_EMAIL_DOMAIN} on ${env.INBOUND_SMTP_HOST}:${env.INBOUND_SMTP_PORT}`,
  );
  return () => new Promise<void>((resolve) => server.close(() => resolve()));
}
