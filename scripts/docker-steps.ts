import { execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

/**
 * `npx tsx scripts/docker-steps.ts`: what the Dockerfile does after pulling
 * the base image, done here without Docker (`npm test` runs it). In a
 * temporary copy of the build context (what .dockerignore lets through):
 * the build stage's RUN commands as the Dockerfile writes them (`npm run
 * build`, `npm prune --omit=dev`…), then the runtime stage's `COPY --from=build`
 * paths only, started with the image's command and environment; `/healthz`
 * must answer 200, and the operator's commands (`send:due`, `db:backup`,
 * `db:restore`, `db:migrate`) must run as `npm run` starts them, through
 * scripts/with-node.sh, with production modules alone, from the build (the
 * runtime stage has no TypeScript sources and no tsx).
 *
 * `npm ci` is the one step not repeated (it would download every package):
 * the installed node_modules are hard-linked in, and `npm ci --dry-run`
 * checks the lock file in its own step of `npm test`.
 */
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const dockerfile = fs.readFileSync(path.join(repoRoot, "Dockerfile"), "utf8");

/** The Dockerfile's instructions, continuation lines joined, comments dropped. */
function instructions() {
  return dockerfile
    .replace(/\\\n/g, " ")
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith("#"));
}

function stage(name: string | null) {
  const lines = instructions();
  const starts = lines.flatMap((line, index) => (line.startsWith("FROM ") ? [index] : []));
  const start = starts.find((index) =>
    name ? lines[index]!.endsWith(` AS ${name}`) : !/ AS /.test(lines[index]!),
  );
  if (start === undefined) throw new Error(`Dockerfile has no stage ${name ?? "(final)"}`);
  const end = starts.find((index) => index > start) ?? lines.length;
  return lines.slice(start + 1, end);
}

const ignored = fs
  .readFileSync(path.join(repoRoot, ".dockerignore"), "utf8")
  .split("\n")
  .map((line) => line.trim())
  .filter((line) => line && !line.startsWith("#"));

function isIgnored(relative: string) {
  return ignored.some((pattern) =>
    pattern.startsWith("*.")
      ? relative.endsWith(pattern.slice(1))
      : relative === pattern || relative.startsWith(`${pattern}/`),
  );
}

function run(command: string, cwd: string, env: Record<string, string | undefined> = process.env) {
  console.log(`$ ${command}`);
  execFileSync("sh", ["-c", command], { cwd, env: env as NodeJS.ProcessEnv, stdio: "inherit" });
}

async function waitForHealth(url: string, exited: () => boolean) {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (exited()) throw new Error("The server exited before it became healthy");
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(2_000) });
      if (response.status === 200) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`${url} did not answer 200 within 30 s`);
}

// The image's Node is the one these steps run on (scripts/use-node.sh puts
// .node-version's first on PATH), so its major must be the base image's.
const imageNodeMajor = /^FROM node:(\d+)/m.exec(dockerfile)?.[1];
const nodeVersionMajor = fs
  .readFileSync(path.join(repoRoot, ".node-version"), "utf8")
  .trim()
  .split(".")[0];
if (imageNodeMajor !== nodeVersionMajor || process.versions.node.split(".")[0] !== imageNodeMajor) {
  throw new Error(
    `The Dockerfile's node:${imageNodeMajor}, .node-version's ${nodeVersionMajor} and this Node (${process.version}) must be one major`,
  );
}
console.log(`Node ${process.version}, as the image's node:${imageNodeMajor}`);

const work = fs.mkdtempSync(path.join(os.tmpdir(), "thoughtfully-image-"));
try {
  // ---- build stage: the context, then every RUN after `COPY . .` ----
  const build = path.join(work, "build-stage");
  fs.cpSync(repoRoot, build, {
    recursive: true,
    filter: (source) => !isIgnored(path.relative(repoRoot, source)),
  });
  // In place of `npm ci`: the same packages, hard-linked (prune only unlinks).
  execFileSync("cp", ["-al", path.join(repoRoot, "node_modules"), build]);
  const buildLines = stage("build");
  const afterCopy = buildLines.slice(buildLines.indexOf("COPY . ."));
  for (const line of afterCopy.filter((line) => line.startsWith("RUN "))) {
    run(line.slice(4), build);
  }

  // ---- runtime stage: only what it copies from the build stage ----
  const runtime = path.join(work, "app");
  fs.mkdirSync(runtime);
  const runtimeLines = stage(null);
  for (const line of runtimeLines.filter((line) => line.startsWith("COPY --from=build "))) {
    const [, ...parts] = line.split(/\s+/).slice(1);
    const target = parts.pop()!;
    for (const source of parts) {
      const from = path.join(build, path.relative("/app", source));
      const to = path.resolve(runtime, target, target.endsWith("/") ? path.basename(from) : "");
      fs.cpSync(from, target === "./" ? path.join(runtime, path.basename(from)) : to, {
        recursive: true,
        verbatimSymlinks: true,
      });
    }
  }
  const env: Record<string, string | undefined> = {
    PATH: process.env.PATH,
    HOME: work,
    npm_config_update_notifier: "false",
  };
  for (const line of runtimeLines.filter((line) => line.startsWith("ENV "))) {
    for (const [, name, value] of line.slice(4).matchAll(/(\w+)=(\S+)/g)) env[name!] = value;
  }
  const data = path.join(work, "data");
  const port = String(20_000 + Math.floor(Math.random() * 20_000));
  Object.assign(env, {
    PORT: port,
    DATABASE_PATH: path.join(data, "app.db"),
    STORAGE_DIR: path.join(data, "uploads"),
    OUTBOX_DIR: path.join(data, "outbox"),
    SCHEDULER: "off",
  });
  const command = JSON.parse(/^CMD (\[.*\])$/m.exec(dockerfile)![1]!) as string[];
  console.log(`$ ${command.join(" ")}  (in the runtime copy, production modules only)`);
  const server = spawn(command[0]!, command.slice(1), {
    cwd: runtime,
    env: env as NodeJS.ProcessEnv,
    stdio: "inherit",
  });
  let exited = false;
  server.once("exit", () => {
    exited = true;
  });
  try {
    await waitForHealth(`http://127.0.0.1:${port}/healthz`, () => exited);
    console.log("GET /healthz: 200");
    // Beside the running server, as docs/deploy.md and the README run them.
    run("npm run send:due", runtime, env);
    run("npm run db:backup", runtime, env);
  } finally {
    server.kill("SIGTERM");
    await new Promise((resolve) => (exited ? resolve(null) : server.once("exit", resolve)));
  }
  // The restore drill of docs/deploy.md, with the server stopped, as on Fly.
  const backups = path.join(data, "backups");
  const backup = path.join(backups, fs.readdirSync(backups).find((name) => name.endsWith(".db"))!);
  run(`npm run db:restore -- ${JSON.stringify(backup)}`, runtime, env);
  run("npm run db:migrate", runtime, env);
  console.log("The image's build and runtime steps work outside Docker.");
} finally {
  fs.rmSync(work, { recursive: true, force: true });
}
