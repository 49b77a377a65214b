import net from "node:net";

/**
 * The greedy client of issue 59, from one address: HTTP bodies that never
 * finish, and SMTP sessions kept open by commands that do nothing.
 */

/**
 * Many sockets from one address, each posting
 * a body that stops one byte short of its Content-Length and is never
 * finished, as a slowloris does. Each socket keeps what the server answered
 * (its status line), or that it was closed without one.
 */
export type SlowBodies = {
  /** Sockets whose headers and bytes are all written (or that the server already answered). */
  settled(): number;
  /** The status of each answered socket: "503", "408"…; "closed" for one closed unanswered. */
  answers(): string[];
  /** Sockets still open without an answer. */
  holding(): number;
  close(): void;
};

export function holdSlowBodies(options: {
  base: string;
  /** The local address the sockets come from (any of 127.0.0.0/8 reaches a loopback server). */
  from: string;
  count: number;
  path: string;
  declaredBytes: number;
  headers?: Record<string, string>;
}): SlowBodies {
  const { hostname, port } = new URL(options.base);
  const sockets: net.Socket[] = [];
  const answers = new Map<net.Socket, string>();
  let settled = 0;
  const head = [
    `POST ${options.path} HTTP/1.1`,
    `Host: ${hostname}:${port}`,
    "Content-Type: application/x-www-form-urlencoded",
    `Content-Length: ${options.declaredBytes}`,
    ...Object.entries(options.headers ?? {}).map(([name, value]) => `${name}: ${value}`),
    "",
    "",
  ].join("\r\n");
  const body = Buffer.alloc(options.declaredBytes - 1, "a");
  for (let index = 0; index < options.count; index++) {
    const socket = net.connect({ host: hostname, port: Number(port), localAddress: options.from });
    sockets.push(socket);
    let counted = false;
    const settle = () => {
      if (counted) return;
      counted = true;
      settled++;
    };
    socket.on("error", () => {});
    socket.once("data", (chunk) => {
      answers.set(socket, /^HTTP\/1\.1 (\d{3})/.exec(chunk.toString("latin1"))?.[1] ?? "garbled");
      settle();
    });
    socket.once("close", () => {
      if (!answers.has(socket)) answers.set(socket, "closed");
      settle();
    });
    socket.write(head);
    socket.write(body, () => settle());
  }
  return {
    settled: () => settled,
    answers: () => [...answers.values()],
    holding: () => sockets.filter((socket) => !answers.has(socket)).length,
    close: () => {
      for (const socket of sockets) socket.destroy();
    },
  };
}

/**
 * `count` SMTP sessions from one address, each greeted, then kept alive with
 * a NOOP every `everyMs` (as an idle timer is reset by each command) until
 * closed. Each keeps the last reply it got ("250", "421"…), or "closed".
 */
export function holdSmtpSessions(options: {
  port: number;
  from: string;
  count: number;
  everyMs: number;
}) {
  const sessions = Array.from({ length: options.count }, () => {
    const socket = net.connect({
      host: "127.0.0.1",
      port: options.port,
      localAddress: options.from,
    });
    const session = { socket, last: "", closed: false };
    let greeted = false;
    socket.setEncoding("latin1");
    socket.on("error", () => {});
    socket.on("data", (text: string) => {
      session.last = text.slice(0, 3);
      if (!greeted && session.last === "220") {
        greeted = true;
        socket.write("EHLO greedy.test\r\n");
      }
    });
    const timer = setInterval(() => socket.write("NOOP\r\n"), options.everyMs);
    socket.once("close", () => {
      session.closed = true;
      clearInterval(timer);
    });
    return session;
  });
  return {
    /** Sessions greeted with 220 and still open. */
    open: () => sessions.filter((session) => !session.closed && session.last !== "421").length,
    /** Sessions that got their greeting or their refusal. */
    settled: () => sessions.filter((session) => session.last !== "" || session.closed).length,
    close: () => {
      for (const session of sessions) session.socket.destroy();
    },
  };
}
