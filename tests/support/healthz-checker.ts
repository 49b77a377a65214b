import http from "node:http";

/**
 * Fly's health check, from a process of its own: run by the flood test
 * (tests/integration/flood.test.ts), it GETs `url` every `everyMs` on a new
 * connection, as a checker on another machine would, and when told "stop"
 * sends back every check's time in ms (null: no answer within `timeoutMs`).
 *
 * A process of its own because the checker is not the attacker: in the test
 * process, whose event loop pushes gigabytes into the server, a check also
 * timed that process's own queue, seconds of it, none of them the server's.
 */
const [url, everyMs, timeoutMs] = [
  process.argv[2]!,
  Number(process.argv[3]),
  Number(process.argv[4]),
];

const times: (number | null)[] = [];
const pending = new Set<Promise<void>>();

function check() {
  const started = performance.now();
  const done = new Promise<void>((resolve) => {
    const record = (ms: number | null) => {
      times.push(ms);
      resolve();
    };
    const request = http.get(url, { agent: false, timeout: timeoutMs }, (response) => {
      response.resume();
      response.once("end", () =>
        record(response.statusCode === 200 ? performance.now() - started : null),
      );
    });
    request.once("timeout", () => request.destroy(new Error("timed out")));
    request.once("error", () => record(null));
  });
  pending.add(done);
  void done.finally(() => pending.delete(done));
}

const timer = setInterval(check, everyMs);
process.on("message", async (message) => {
  if (message !== "stop") return;
  clearInterval(timer);
  await Promise.all(pending);
  process.send!(times, () => process.exit(0));
});
