import { SMTPServer } from "smtp-server";

/**
 * A loopback SMTP server for benchmarks, run as its own process (forked with
 * the tsx loader) so its work and memory stay out of the measured process.
 * It parses nothing: it counts accepted messages, their bytes and the
 * envelope recipients. Talks to its parent over IPC:
 *
 *   parent → { type: "reset" }                  zero the counters
 *   parent → { type: "stats", list?: boolean }  send the counters (and the recipients)
 *   child  → { type: "listening", port }        once, at start
 *   child  → { type: "stats", ... }             in answer to "stats"
 *   child  → { type: "reset" }                  in answer to "reset"
 *
 * It exits when the parent disconnects.
 *
 * SINK_LATENCY_MS (from the environment, 0 when unset) delays its answer to
 * each end of DATA, as a relay across the network does (50 to 500 ms for the
 * common ones): the message counts once the answer goes.
 */
const LATENCY_MS = Number(process.env.SINK_LATENCY_MS) || 0;

export type SinkStats = {
  type: "stats";
  messages: number;
  bytes: number;
  recipients: number;
  /** Distinct envelope recipients since the last reset. */
  distinct: number;
  /** Every envelope recipient since the last reset, when asked with `list`. */
  list?: string[];
};

export type SinkRequest = { type: "reset" } | { type: "stats"; list?: boolean };
export type SinkReply = { type: "listening"; port: number } | { type: "reset" } | SinkStats;

let messages = 0;
let bytes = 0;
let recipients: string[] = [];

const server = new SMTPServer({
  authOptional: true,
  disabledCommands: ["STARTTLS"],
  logger: false,
  closeTimeout: 200,
  onRcptTo: (address, _session, callback) => {
    recipients.push(address.address.toLowerCase());
    callback();
  },
  onData: (stream, _session, callback) => {
    stream.on("data", (chunk: Buffer) => {
      bytes += chunk.length;
    });
    stream.on("end", () => {
      const answer = () => {
        messages += 1;
        callback();
      };
      if (LATENCY_MS > 0) setTimeout(answer, LATENCY_MS);
      else answer();
    });
  },
});

function reply(message: SinkReply) {
  process.send?.(message);
}

process.on("message", (request: SinkRequest) => {
  if (request.type === "reset") {
    messages = 0;
    bytes = 0;
    recipients = [];
    reply({ type: "reset" });
  } else if (request.type === "stats") {
    reply({
      type: "stats",
      messages,
      bytes,
      recipients: recipients.length,
      distinct: new Set(recipients).size,
      ...(request.list ? { list: recipients } : {}),
    });
  }
});

process.on("disconnect", () => {
  server.close(() => process.exit(0));
  setTimeout(() => process.exit(0), 1_000).unref();
});

server.listen(0, "127.0.0.1", () => {
  const address = server.server.address();
  reply({ type: "listening", port: typeof address === "object" && address ? address.port : 0 });
});
