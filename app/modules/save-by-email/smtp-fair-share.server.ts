import crypto from "node:crypto";
import type net from "node:net";
import { finished } from "node:stream";
import {
  SMTPServer,
  type SMTPServerDataStream,
  type SMTPServerOptions,
  type SMTPServerSession,
} from "smtp-server";
import { clientShareKey } from "~/platform/client-address";
import { RuleError } from "~/platform/errors.server";

/**
 * Each client's fair share of the SMTP receiver (issue 59,
 * docs/decisions/0236-a-fair-share-of-the-smtp-door.md): what Postfix's anvil
 * (sessions per client), smtpd_timeout with smtpd_min_data_rate, and its
 * junk command limit do, on smtp-server. One client can hold a few sessions,
 * each for a bounded time; `maxClients` stays the cap of them all.
 */
export type SmtpSessionLimits = {
  /** Sessions one client (`clientShareKey`: an IPv4 address, an IPv6 /64) may hold open at once. */
  sessionsPerClient: number;
  /** Silence from a client the receiver waits on, before 421 (smtp-server's socketTimeout: each byte restarts it). */
  idleMs: number;
  /** A session's whole life, from its connection, before 421. */
  sessionMs: number;
  /** The slowest a message may arrive, on average, once its slack is spent... */
  dataBytesPerSecond: number;
  /** ...and the time a message starts with: bytes sent faster never raise it above this. */
  dataSlackMs: number;
  /** Commands that carry no message (NOOP, RSET, HELO, VRFY, unknown, refused) between two messages; the next is 421. */
  commandsWithoutMessage: number;
};

export const SMTP_SESSION_LIMITS: SmtpSessionLimits = {
  sessionsPerClient: 3,
  idleMs: 60_000,
  // 25 MiB fits at 350 kbit/s, with time left for the envelope and the parse.
  sessionMs: 10 * 60_000,
  // Postfix's smtpd_min_data_rate, its slack smtpd_timeout: a byte every few seconds is ended in a minute.
  dataBytesPerSecond: 500,
  dataSlackMs: 60_000,
  // As many as smtp-server allows unrecognized commands.
  commandsWithoutMessage: 10,
};

const TOO_MANY_SESSIONS = "Too many connections from your address, try again later";
const SESSION_OVER = "Session too long, closing: send the rest in a new one";
const DATA_TOO_SLOW = "Message arriving too slowly, closing: try again later";
const NOTHING_DONE = "Too many commands without a message, closing";

/** How long a refused connection may stay to read its 421 (smtp-server waits 1 s after a bad PROXY header). */
const REFUSED_LINGER_MS = 1_000;

/** A message the receiver stopped reading because its session broke a bound (the reply is the message). */
export class SessionEndedError extends RuleError {
  override name = "SessionEndedError";
}

/** The sessions each client holds open, by session id, so that no session is released twice. */
export class ClientSessions {
  readonly #clientOf = new Map<string, string>();
  readonly #held = new Map<string, number>();

  constructor(readonly perClient: number) {}

  /** Counts session `id` as `address`'s client's, unless it holds its share already: then false. */
  admit(id: string, address: string | null): boolean {
    if (this.#clientOf.has(id)) return true;
    const client = clientShareKey(address);
    const held = this.#held.get(client) ?? 0;
    if (held >= this.perClient) return false;
    this.#clientOf.set(id, client);
    this.#held.set(client, held + 1);
    return true;
  }

  /** Gives session `id`'s place back; nothing for a session never admitted or already released. */
  release(id: string): void {
    const client = this.#clientOf.get(id);
    if (client === undefined) return;
    this.#clientOf.delete(id);
    const held = (this.#held.get(client) ?? 1) - 1;
    if (held > 0) this.#held.set(client, held);
    else this.#held.delete(client);
  }

  heldBy(address: string | null): number {
    return this.#held.get(clientShareKey(address)) ?? 0;
  }
}

type Connection = SMTPServer["connections"] extends Set<infer C> ? C : never;
type Socket = Parameters<SMTPServer["connect"]>[0];
type SocketOptions = Parameters<SMTPServer["connect"]>[1];

/**
 * smtp-server, with each client's share taken as its connection arrives and
 * each session guarded until it closes. Its onConnect would come too late:
 * smtp-server calls it after a 100 ms pause for early talkers, and until then
 * the connection holds one of `maxClients`' places, so one address opening
 * connections without end would hold them all. A connection past its share
 * is answered here and never becomes a session.
 */
export class FairShareSmtpServer extends SMTPServer {
  readonly #limits: SmtpSessionLimits;
  readonly #sessions: ClientSessions;
  readonly #guards: Map<string, SessionGuard>;

  constructor(
    options: SMTPServerOptions & Required<Pick<SMTPServerOptions, "onData">>,
    limits: SmtpSessionLimits,
  ) {
    const sessions = new ClientSessions(limits.sessionsPerClient);
    const guards = new Map<string, SessionGuard>();
    const { onData, onClose } = options;
    super({
      ...options,
      socketTimeout: limits.idleMs,
      onData(stream, session, callback) {
        const guard = guards.get(session.id);
        guard?.messageArriving(stream);
        onData(stream, session, (error, message) => {
          callback(error, message);
          guard?.messageAnswered();
        });
      },
      // Every way a session ends closes its socket, and smtp-server calls this once for it.
      onClose(session, callback) {
        sessions.release(session.id);
        guards.get(session.id)?.stop();
        guards.delete(session.id);
        onClose?.(session, callback);
      },
    });
    this.#limits = limits;
    this.#sessions = sessions;
    this.#guards = guards;
  }

  /** How many sessions `address`'s client holds now. */
  sessionsHeldBy(address: string | null): number {
    return this.#sessions.heldBy(address);
  }

  override connect(socket: Socket, socketOptions?: SocketOptions): void {
    // Closed before its session began: it holds nothing.
    if (socket.destroyed) return;
    const id = socketOptions?.id ?? crypto.randomUUID();
    // With the PROXY protocol, the header's address; else the peer's.
    const address = socketOptions?.remoteAddress ?? socket.remoteAddress ?? null;
    if (!this.#sessions.admit(id, address)) {
      refuse(socket, TOO_MANY_SESSIONS);
      return;
    }
    super.connect(socket, { ...socketOptions, id });
    // Gone already when smtp-server refused it (maxClients); its place is given back at its close.
    for (const connection of this.connections) {
      if (connection.id === id) this.#guards.set(id, new SessionGuard(connection, this.#limits));
    }
  }
}

/** 421 and the end, as smtp-server closes a session; reading on to nowhere, so the client's end is seen. */
function refuse(socket: net.Socket, reply: string) {
  socket.on("error", () => undefined);
  socket.end(`421 ${reply}\r\n`);
  socket.resume();
  setTimeout(() => socket.destroy(), REFUSED_LINGER_MS).unref();
}

const envelopeSize = (session: SMTPServerSession) =>
  (session.envelope.mailFrom ? 1 : 0) + session.envelope.rcptTo.length;

type ArrivingMessage = {
  stream: SMTPServerDataStream;
  arrived: boolean;
  answered: boolean;
  stopWatching: () => void;
};

/**
 * One session's bounds past smtp-server's idle timer, which each byte
 * restarts: its whole time, its message's rate, and its commands that carry
 * no message. Past any: 421 and the session closed, as smtp-server ends an
 * idle one, and a message still arriving is dropped with its spool file.
 */
class SessionGuard {
  readonly #connection: Connection;
  readonly #limits: SmtpSessionLimits;
  readonly #sessionTimer: NodeJS.Timeout;
  #commandsWithoutMessage = 0;
  #message: ArrivingMessage | null = null;
  #overOnceAnswered = false;
  #over = false;

  constructor(connection: Connection, limits: SmtpSessionLimits) {
    this.#connection = connection;
    this.#limits = limits;
    this.#sessionTimer = setTimeout(() => this.#sessionOver(), limits.sessionMs);
    this.#sessionTimer.unref();
    this.#countCommandsWithoutMessage();
  }

  messageArriving(stream: SMTPServerDataStream) {
    const message: ArrivingMessage = {
      stream,
      arrived: false,
      answered: false,
      stopWatching: watchArrivalRate(stream, this.#limits, () => this.#end(DATA_TOO_SLOW)),
    };
    this.#message = message;
    finished(stream, { writable: false }, () => {
      message.stopWatching();
      message.arrived = true;
      this.#settle(message);
    });
  }

  messageAnswered() {
    if (!this.#message) return;
    this.#message.answered = true;
    this.#settle(this.#message);
  }

  stop() {
    clearTimeout(this.#sessionTimer);
    this.#message?.stopWatching();
  }

  /** A message in and answered: the count of commands without one starts again, as smtp-server's does. */
  #settle(message: ArrivingMessage) {
    if (!message.arrived || !message.answered || this.#message !== message) return;
    this.#message = null;
    this.#commandsWithoutMessage = 0;
    if (this.#overOnceAnswered) this.#end(SESSION_OVER);
  }

  #sessionOver() {
    // A message in full and not yet answered: the client waits on the receiver, and would send it
    // again if cut now (smtp-server's idle timer waits then too).
    if (this.#message?.arrived && !this.#message.answered) this.#overOnceAnswered = true;
    else this.#end(SESSION_OVER);
  }

  #end(reply: string) {
    if (this.#over) return;
    this.#over = true;
    this.stop();
    this.#connection.send(421, reply);
    // Its spool file goes now, not once the client closes its side.
    const message = this.#message;
    if (message && !message.arrived) message.stream.destroy(new SessionEndedError(reply));
  }

  /**
   * smtp-server has no hook for each command. Its own caps count only
   * unrecognized commands (10, again after each message) and, where AUTH is
   * required, commands before it; NOOP, RSET and HELO go on for ever. Every
   * command goes through the connection's _onCommand, so each is counted
   * here, and given back once answered if it carried a message on: grew the
   * envelope (an accepted MAIL or RCPT). DATA with recipients and QUIT are
   * not counted. With the count full, the next command is answered 421.
   */
  #countCommandsWithoutMessage() {
    const connection = this.#connection;
    const handle = connection._onCommand.bind(connection);
    connection._onCommand = (command, next) => {
      const session = connection.session;
      const verb = (command || "").toString().split(" ", 1)[0]!.toUpperCase();
      if (verb === "QUIT" || (verb === "DATA" && session.envelope.rcptTo.length > 0)) {
        return handle(command, next);
      }
      if (this.#commandsWithoutMessage >= this.#limits.commandsWithoutMessage) {
        return this.#end(NOTHING_DONE);
      }
      this.#commandsWithoutMessage += 1;
      const before = envelopeSize(session);
      handle(command, () => {
        if (envelopeSize(session) > before) this.#commandsWithoutMessage -= 1;
        next?.();
      });
    };
  }
}

/**
 * Postfix's smtpd_min_data_rate: a message starts with `dataSlackMs` of time,
 * time spends it, and each byte gives back 1/`dataBytesPerSecond` of a second,
 * never above the slack; with none left, `tooSlow`. Returns the stop.
 */
function watchArrivalRate(
  stream: SMTPServerDataStream,
  { dataBytesPerSecond, dataSlackMs }: SmtpSessionLimits,
  tooSlow: () => void,
) {
  let leftMs = dataSlackMs;
  let at = performance.now();
  const spend = (bytes: number) => {
    const now = performance.now();
    leftMs = Math.min(dataSlackMs, leftMs - (now - at) + (bytes * 1000) / dataBytesPerSecond);
    at = now;
  };
  // Beside the spool's pipe, which keeps the flow (and its back-pressure) as it was.
  const counted = (chunk: Buffer) => spend(chunk.length);
  stream.on("data", counted);
  let timer: NodeJS.Timeout;
  const check = () => {
    spend(0);
    if (leftMs <= 0) {
      stream.off("data", counted);
      return tooSlow();
    }
    timer = setTimeout(check, leftMs);
    timer.unref();
  };
  timer = setTimeout(check, leftMs);
  timer.unref();
  return () => {
    clearTimeout(timer);
    stream.off("data", counted);
  };
}
