// The cold-start floor of `npm run bench:cold-start`: a bare Node HTTP server
// that answers /healthz. Whatever it takes from spawn to its first 200 is
// Node's own start and the loopback round trips, not our code.
import http from "node:http";

http
  .createServer((_request, response) => response.end("ok"))
  .listen(Number(process.env.PORT), "127.0.0.1");
