import net from "node:net";

/**
 * One SMTP connection over a plain socket, for what no well-behaved client
 * does (issue 59): holding a session with NOOPs, trickling DATA, leaving
 * mid-command. `localAddress` is the loopback address it comes from (Linux
 * routes all of 127.0.0.0/8 to loopback), so one test can be two clients.
 */
export type RawSmtpSession = {
  readonly socket: net.Socket;
  /** The next complete reply, its last line "NNN text"; "" once the connection is closed. */
  reply(): Promise<string>;
  /** Writes `line` and CRLF, and gives the reply to it. */
  command(line: string): Promise<string>;
  /** Settles once the socket is closed, by either side. */
  readonly closed: Promise<void>;
};

export function openRawSmtpSession(port: number, localAddress = "127.0.0.1"): RawSmtpSession {
  const socket = net.connect({ port, host: "127.0.0.1", localAddress });
  const replies: string[] = [];
  const waiting: ((reply: string) => void)[] = [];
  let pending = "";
  let isClosed = false;
  const deliver = (reply: string) => {
    const waiter = waiting.shift();
    if (waiter) waiter(reply);
    else replies.push(reply);
  };
  socket.on("data", (chunk) => {
    pending += chunk.toString("latin1");
    // A reply ends at its last line, "NNN text" (the lines before it are "NNN-text").
    for (let end = pending.search(/^\d{3}(?: .*)?\r\n/m); end >= 0; ) {
      const lineEnd = pending.indexOf("\r\n", end) + 2;
      deliver(pending.slice(0, lineEnd));
      pending = pending.slice(lineEnd);
      end = pending.search(/^\d{3}(?: .*)?\r\n/m);
    }
  });
  // A reset by the receiver is one way a session ends; the test looks at `closed`.
  socket.on("error", () => undefined);
  const closed = new Promise<void>((resolve) =>
    socket.on("close", () => {
      isClosed = true;
      for (const waiter of waiting.splice(0)) waiter("");
      resolve();
    }),
  );
  const reply = () =>
    new Promise<string>((resolve) => {
      const ready = replies.shift();
      if (ready !== undefined) resolve(ready);
      else if (isClosed) resolve("");
      else waiting.push(resolve);
    });
  return {
    socket,
    reply,
    command(line) {
      socket.write(`${line}\r\n`);
      return reply();
    },
    closed,
  };
}
