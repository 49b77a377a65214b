import { type ParsedMail, simpleParser } from "mailparser";
import { SMTPServer, type SMTPServerSession } from "smtp-server";

export type ReceivedMessage = ParsedMail & { envelopeTo: string[]; envelopeFrom: string | null };

/**
 * A real SMTP server on loopback for tests: it keeps every message it
 * accepts, and can refuse chosen recipients (450 transient, 550 permanent),
 * stop answering after a number of messages, like a server that hangs, or
 * answer messages' ends in groups, so that several connections are in their
 * window (accepted, not yet recorded by the sender) at the same instant.
 */
export class SmtpSink {
  readonly messages: ReceivedMessage[] = [];
  /** Address → SMTP code to answer at RCPT TO (a one-shot for 4xx codes). */
  readonly refuse = new Map<string, number>();
  /** Kept messages after which every end is left unanswered (compared with `messages.length`). */
  stallAfter = Number.POSITIVE_INFINITY;
  /** Messages received in full but left unanswered (see stallAfter): the sender waits for its "250". */
  stalled = 0;
  /**
   * Set above 0: each message's end waits unanswered until this many wait, then all of them are
   * accepted (kept, then answered "250") together. Ends still waiting when it is set back to 0
   * are dropped unanswered, as a sender killed meanwhile leaves them.
   */
  get answerTogether() {
    return this.groupSize;
  }
  set answerTogether(size: number) {
    this.groupSize = size;
    if (size === 0) {
      this.admitted -= this.heldEnds.length;
      this.heldEnds = [];
    }
  }
  /** Ends waiting for their group (see answerTogether). */
  get held() {
    return this.heldEnds.length;
  }
  private groupSize = 0;
  /**
   * Messages whose end passed the stallAfter check, counted as their ends arrive: several
   * connections end messages before any of them is parsed and kept.
   */
  private admitted = 0;
  private heldEnds: (() => void)[] = [];
  /** Connections reset by the sender (a process killed mid-message): a real server carries on. */
  readonly connectionErrors: Error[] = [];
  private server: SMTPServer;
  port = 0;

  constructor() {
    this.server = new SMTPServer({
      authOptional: true,
      disabledCommands: ["STARTTLS"],
      logger: false,
      closeTimeout: 200,
      onRcptTo: (address, _session, callback) => {
        const code = this.refuse.get(address.address.toLowerCase());
        if (code) {
          if (code < 500) this.refuse.delete(address.address.toLowerCase());
          const error = Object.assign(new Error(`Refused with ${code}`), { responseCode: code });
          return callback(error);
        }
        callback();
      },
      onData: (stream, session: SMTPServerSession, callback) => {
        const chunks: Buffer[] = [];
        stream.on("data", (chunk: Buffer) => chunks.push(chunk));
        stream.on("end", async () => {
          if (this.admitted >= this.stallAfter) {
            this.stalled += 1;
            return; // never answers: the client waits
          }
          this.admitted += 1;
          const parsed = await simpleParser(Buffer.concat(chunks));
          const accept = () => {
            this.messages.push(
              Object.assign(parsed, {
                envelopeTo: session.envelope.rcptTo.map((rcpt) => rcpt.address.toLowerCase()),
                envelopeFrom: session.envelope.mailFrom ? session.envelope.mailFrom.address : null,
              }),
            );
            callback();
          };
          if (this.groupSize === 0) return accept();
          this.heldEnds.push(accept);
          if (this.heldEnds.length < this.groupSize) return;
          const group = this.heldEnds;
          this.heldEnds = [];
          // The whole group is kept and answered in one go, whatever the sender does meanwhile.
          for (const end of group) end();
        });
      },
    });
    this.server.on("error", (error) => this.connectionErrors.push(error));
  }

  async start() {
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", () => resolve()));
    const address = this.server.server.address();
    this.port = typeof address === "object" && address ? address.port : 0;
    return `smtp://127.0.0.1:${this.port}`;
  }

  to(email: string) {
    return this.messages.filter((message) => message.envelopeTo.includes(email.toLowerCase()));
  }

  async stop() {
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
