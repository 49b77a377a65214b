import { type ChildProcess, fork } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { SinkReply, SinkRequest, SinkStats } from "./count-sink";

/** The counting SMTP sink (./count-sink.ts) in its own process, and how to talk to it. */
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const sinkScript = path.join(repoRoot, "bench", "support", "count-sink.ts");

export type Sink = {
  child: ChildProcess;
  port: number;
  request(message: { type: "reset" }): Promise<void>;
  request(message: { type: "stats"; list?: boolean }): Promise<SinkStats>;
};

export async function startSink(): Promise<Sink> {
  const child = fork(sinkScript, [], {
    cwd: repoRoot,
    execArgv: ["--import", "tsx"],
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const replies: ((reply: SinkReply) => void)[] = [];
  child.on("message", (reply: SinkReply) => replies.shift()?.(reply));
  const next = () =>
    new Promise<SinkReply>((resolve, reject) => {
      const onExit = (code: number | null) => reject(new Error(`The SMTP sink exited (${code})`));
      child.once("exit", onExit);
      replies.push((reply) => {
        child.off("exit", onExit);
        resolve(reply);
      });
    });
  const listening = await next();
  if (listening.type !== "listening") throw new Error("The SMTP sink did not start");
  return {
    child,
    port: listening.port,
    request: (async (message: SinkRequest) => {
      const answer = next();
      child.send(message);
      const reply = await answer;
      if (reply.type !== message.type) throw new Error(`The SMTP sink answered ${reply.type}`);
      return reply.type === "stats" ? reply : undefined;
    }) as Sink["request"],
  };
}

export async function stopSink(sink: Sink) {
  if (sink.child.exitCode !== null || sink.child.signalCode !== null) return;
  const exited = new Promise((resolve) => sink.child.once("exit", resolve));
  sink.child.disconnect();
  const forced = setTimeout(() => sink.child.kill("SIGKILL"), 5_000);
  await exited;
  clearTimeout(forced);
}
