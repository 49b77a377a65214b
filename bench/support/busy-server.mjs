// The latency floor of `npm run bench:dashboard`: a bare Node HTTP server that
// spends BUSY_MS of CPU on every request (a loop that allocates nothing, so no
// garbage collection either) and answers BODY_BYTES of text. Whatever tail
// latency it shows under the benchmark's load comes from Node's event loop,
// the machine and the load generator, not from Remix or our code.
import http from "node:http";

const busyMs = Number(process.env.BUSY_MS);
const body = "x".repeat(Number(process.env.BODY_BYTES));

http
  .createServer((_request, response) => {
    const until = performance.now() + busyMs;
    while (performance.now() < until);
    response.setHeader("Content-Type", "text/html; charset=utf-8");
    response.end(body);
  })
  .listen(Number(process.env.PORT), "127.0.0.1");
