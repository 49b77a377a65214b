// The packages' floor of `npm run bench:cold-start`: a bare Node HTTP server
// that first imports every package the production server imports at start
// (the static imports of build/index.js and build/server/index.js, and the
// express stack it loads through remix-serve), and does nothing with them.
// The production server cannot start faster than this without loading less.
import fs from "node:fs";
import http from "node:http";
import module, { createRequire } from "node:module";
import path from "node:path";

// As the production server does (server/index.ts).
module.enableCompileCache?.();

const build = path.resolve(process.argv[2] ?? "build");
const specifiers = new Set();
for (const file of ["index.js", "server/index.js"]) {
  const source = fs.readFileSync(path.join(build, file), "utf8");
  for (const [, specifier] of source.matchAll(/^import\s[^;]*?from\s+"([^"]+)";/gms)) {
    if (!specifier.startsWith(".")) specifiers.add(specifier);
  }
}
// The build resolves packages from the same node_modules as this file does.
for (const specifier of specifiers) await import(specifier);
const serveRequire = createRequire(
  createRequire(import.meta.url).resolve("@remix-run/serve/package.json"),
);
for (const name of ["express", "compression", "source-map-support"]) serveRequire(name);

http
  .createServer((_request, response) => response.end("ok"))
  .listen(Number(process.env.PORT), "127.0.0.1");
