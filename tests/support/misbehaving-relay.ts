import type net from "node:net";
import { simpleParser } from "mailparser";
import { SMTPServer, type SMTPServerSession } from "smtp-server";
import type { ReceivedMessage } from "./smtp-sink";

/** Where in an SMTP session the relay answers: each has its own script. */
export type RelayStage = "greeting" | "ehlo" | "auth" | "mailFrom" | "rcptTo" | "dataEnd";

/**
 * What the relay does at a stage. Nothing set: it answers as a good relay would.
 * `answer` is the whole reply, code first, as the client reads it: "554 5.7.1 Your IP is
 * blocked", "421 Try later" (an enhanced code is part of the words, never added).
 */
export type StageScript = {
  answer?: string;
  /** Waits this long before answering (or dropping). */
  delayMs?: number;
  /** Closes the connection instead of answering. */
  drop?: boolean;
};

/** One thing the relay did: what it answered at a stage (and to whom, at RCPT TO). */
export type RelayEvent = { stage: RelayStage; address?: string; reply: string };

const GOOD_REPLIES: Record<RelayStage, string> = {
  greeting: "220",
  ehlo: "250",
  auth: "235",
  mailFrom: "250",
  rcptTo: "250",
  dataEnd: "250",
};

/**
 * An SMTP relay on loopback that misbehaves on purpose, stage by stage: a chosen reply, a
 * delay or a dropped connection at the greeting, EHLO (and the HELO a client falls back to),
 * AUTH, MAIL FROM, RCPT TO (for every recipient, or one) and the end of DATA. The script is
 * read as each stage happens, so a test changes it between sends (`at`, `heal`); a session
 * already past its greeting, EHLO and AUTH (a pooled connection) does not see those again.
 *
 * Built on smtp-server, with its enhanced status codes off so every reply is the script's
 * own words. smtp-server has no hook for EHLO: each session's EHLO and HELO handlers are
 * wrapped when it connects.
 */
export class MisbehavingRelay {
  /** Messages accepted, as the sink keeps them. */
  readonly messages: ReceivedMessage[] = [];
  /** Every scripted or good reply given, in order. */
  readonly events: RelayEvent[] = [];
  private readonly scripts = new Map<RelayStage, StageScript>();
  private readonly recipientScripts = new Map<string, StageScript>();
  private readonly sockets = new Map<number, net.Socket>();
  private readonly server: SMTPServer;
  port = 0;

  constructor() {
    this.server = new SMTPServer({
      authOptional: true,
      allowInsecureAuth: true,
      disabledCommands: ["STARTTLS"],
      hideENHANCEDSTATUSCODES: true,
      disableReverseLookup: true,
      logger: false,
      closeTimeout: 200,
      onConnect: (session, callback) => {
        this.wrapHello(session);
        this.play("greeting", session, callback);
      },
      onAuth: (_auth, session, callback) =>
        this.play("auth", session, (error) =>
          error ? callback(error) : callback(null, { user: "relay-user" }),
        ),
      onMailFrom: (_address, session, callback) => this.play("mailFrom", session, callback),
      onRcptTo: (address, session, callback) =>
        this.play("rcptTo", session, callback, address.address.toLowerCase()),
      onData: (stream, session, callback) => {
        const chunks: Buffer[] = [];
        stream.on("data", (chunk: Buffer) => chunks.push(chunk));
        stream.on("end", () =>
          this.play("dataEnd", session, async (error) => {
            if (error) return callback(error);
            const parsed = await simpleParser(Buffer.concat(chunks));
            this.messages.push(
              Object.assign(parsed, {
                envelopeTo: session.envelope.rcptTo.map((rcpt) => rcpt.address.toLowerCase()),
                envelopeFrom: session.envelope.mailFrom ? session.envelope.mailFrom.address : null,
              }),
            );
            callback();
          }),
        );
      },
    });
    this.server.server.on("connection", (socket: net.Socket) => {
      const port = socket.remotePort ?? 0;
      this.sockets.set(port, socket);
      socket.once("close", () => this.sockets.delete(port));
    });
  }

  /** From now on, `stage` goes as `script` says; at RCPT TO, for `address` only when given. */
  at(stage: RelayStage, script: StageScript, address?: string) {
    if (address !== undefined) {
      if (stage !== "rcptTo") throw new Error("Only RCPT TO is scripted per recipient");
      this.recipientScripts.set(address.toLowerCase(), script);
    } else {
      this.scripts.set(stage, script);
    }
    return this;
  }

  /** Every stage answers well again. */
  heal() {
    this.scripts.clear();
    this.recipientScripts.clear();
    return this;
  }

  /** The replies given at a stage (to one recipient, at RCPT TO). */
  seen(stage: RelayStage, address?: string) {
    return this.events.filter(
      (event) =>
        event.stage === stage && (address === undefined || event.address === address.toLowerCase()),
    );
  }

  to(email: string) {
    return this.messages.filter((message) => message.envelopeTo.includes(email.toLowerCase()));
  }

  /** Ends every open session, as a relay restarting would. */
  endSessions() {
    for (const socket of this.sockets.values()) socket.destroy();
  }

  async start() {
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", () => resolve()));
    const address = this.server.server.address();
    this.port = typeof address === "object" && address ? address.port : 0;
    return `smtp://127.0.0.1:${this.port}`;
  }

  async stop() {
    this.endSessions();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private scriptFor(stage: RelayStage, address?: string) {
    return (address && this.recipientScripts.get(address)) || this.scripts.get(stage) || {};
  }

  /** Plays the stage's script, then calls back: no error (a good reply) or the scripted one. */
  private play(
    stage: RelayStage,
    session: SMTPServerSession,
    callback: (error?: Error) => void,
    address?: string,
  ) {
    const script = this.scriptFor(stage, address);
    const act = () => {
      if (script.drop) {
        this.events.push({ stage, address, reply: "(dropped)" });
        this.sockets.get(session.remotePort)?.destroy();
        return;
      }
      const reply = script.answer ?? GOOD_REPLIES[stage];
      this.events.push({ stage, address, reply });
      if (!script.answer) return callback();
      callback(replyError(script.answer));
    };
    if (script.delayMs) setTimeout(act, script.delayMs);
    else act();
  }

  /** EHLO and HELO answer from the "ehlo" script; a good one is smtp-server's own. */
  private wrapHello(session: SMTPServerSession) {
    const connection = [...this.server.connections].find((open) => open.session === session);
    if (!connection) return;
    for (const name of ["handler_EHLO", "handler_HELO"] as const) {
      const own = connection[name].bind(connection);
      connection[name] = (command, callback) => {
        const script = this.scriptFor("ehlo");
        if (!script.answer && !script.drop && !script.delayMs) {
          this.events.push({ stage: "ehlo", reply: GOOD_REPLIES.ehlo });
          return own(command, callback);
        }
        this.play("ehlo", session, (error) => {
          if (!error) return own(command, callback);
          const { responseCode, message } = error as Error & { responseCode: number };
          connection.send(responseCode, message, false);
          callback();
        });
      };
    }
  }
}

/** "554 5.7.1 Blocked" as the error smtp-server turns into that very reply. */
function replyError(answer: string) {
  const match = /^(\d{3})\s*(.*)$/.exec(answer);
  if (!match) throw new Error(`A reply starts with its code: ${answer}`);
  return Object.assign(new Error(match[2]), { responseCode: Number(match[1]) });
}
