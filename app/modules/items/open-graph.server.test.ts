import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { expect, test } from "vitest";

const root = fileURLToPath(new URL("../../..", import.meta.url));

/** A fresh process: loading the scraper before Node's fetch was ever used, as the server does. */
const script = `
import http from "node:http";
const server = http.createServer((request, response) => {
  request.resume();
  request.on("end", () => response.end("ok"));
});
await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
const { openGraphScraper } = await import("./app/modules/items/open-graph.server.ts");
await openGraphScraper();
const body = new TextEncoder().encode("grant_type=authorization_code");
try {
  const response = await fetch("http://127.0.0.1:" + server.address().port + "/token", {
    method: "POST",
    body,
    headers: { "Content-Length": String(body.byteLength) },
  });
  console.log(await response.text());
} catch (error) {
  console.log(error.cause?.message ?? error.message);
}
server.close();
`;

test("loading open-graph-scraper leaves Node's fetch able to post a body (arctic's token request)", () => {
  const result = spawnSync(
    process.execPath,
    ["--import", "tsx", "--input-type=module", "-e", script],
    { cwd: root, encoding: "utf8" },
  );
  expect(result.stdout.trim(), result.stderr).toBe("ok");
});
