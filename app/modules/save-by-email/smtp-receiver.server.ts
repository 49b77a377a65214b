import fs from "node:fs";
import { SMTPServer, type SMTPServerOptions } from "smtp-server";
import { LIMITS } from "~/modules/billing/limits";
import { env } from "~/platform/env.server";
import { consumeRateLimit } from "~/platform/rate-limit.server";
import { runInRequestContext } from "~/platform/request-context.server";
import { receiveMail } from "./save-by-email.server";
import { recipientRefusal } from "./smtp-envelope.server";

/**
 * The optional SMTP receiver for a self-hosted deployment: mail for
 * INBOUND_EMAIL_DOMAIN straight from the sender's mail server, in the same
 * process (docs/decisions/0158-save-by-email.md). It takes mail only for
 * folders' addresses and from their owners' own addresses (others are
 * refused at RCPT TO, before any data: docs/decisions/0177-smtp-envelope-judged-at-rcpt.md), stops
 * keeping a message past the size limit while it still arrives, offers
 * STARTTLS with a configured certificate, and never relays or authenticates.
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

export function createSmtpReceiver(): SMTPServer {
  const maxBytes = LIMITS.saveByEmail.maxMessageBytes;
  return new SMTPServer({
    ...tlsOptions(),
    name: env.INBOUND_EMAIL_DOMAIN,
    banner: "Thoughtfully saves mail for its folders' addresses only",
    authOptional: true,
    // Behind Fly's proxy every peer is the proxy: the header names the sender, for SPF and the limits.
    useProxy: env.INBOUND_SMTP_PROXY_PROTOCOL,
    size: maxBytes,
    maxClients: 20,
    socketTimeout: 60_000,
    closeTimeout: 10_000,
    logger: false,
    onConnect(session, callback) {
      consumeRateLimit(CONNECTIONS_PER_CLIENT, session.remoteAddress).then(
        (verdict) =>
          callback(verdict.allowed ? undefined : smtpError(421, "Too many connections, try later")),
        () => callback(smtpError(451, "Temporary failure, try later")),
      );
    },
    onRcptTo(address, session, callback) {
      if (session.envelope.rcptTo.length >= MAX_RECIPIENTS) {
        return callback(smtpError(452, "Too many recipients"));
      }
      const mailFrom = session.envelope.mailFrom ? session.envelope.mailFrom.address : "";
      recipientRefusal(address.address, mailFrom, session.remoteAddress).then(
        (refusal) =>
          callback(refusal ? smtpError(refusal.responseCode, refusal.message) : undefined),
        () => callback(smtpError(451, "Temporary failure, try later")),
      );
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      let size = 0;
      stream.on("data", (chunk: Buffer) => {
        size += chunk.length;
        if (size <= maxBytes) chunks.push(chunk);
      });
      stream.on("end", () => {
        if (stream.sizeExceeded || size > maxBytes) {
          return callback(smtpError(552, "Message too large"));
        }
        const mailFrom = session.envelope.mailFrom;
        // The security records name this session the way they name a request.
        const request = new Request(`${env.APP_URL}/smtp`, { method: "POST" });
        runInRequestContext({ peerAddress: session.remoteAddress }, () =>
          receiveMail({
            raw: Buffer.concat(chunks),
            recipients: session.envelope.rcptTo.map((rcpt) => rcpt.address),
            transport: {
              ip: session.remoteAddress,
              helo: session.hostNameAppearsAs,
              mailFrom: mailFrom ? mailFrom.address : "",
            },
            request,
          }),
        ).then(
          // Accepted whatever became of it: a refusal here would make the
          // sending server bounce to an address that may be forged.
          () => callback(),
          (error) => {
            console.error("[smtp] could not save a message", error);
            callback(smtpError(451, "Temporary failure, try again later"));
          },
        );
      });
    },
  });
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
