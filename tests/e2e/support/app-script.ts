import { execFileSync } from "node:child_process";
import { serverEnv } from "./server-env";

/**
 * Runs one of the app's own jobs in a process of its own against the e2e
 * server's database and mail catcher, as the scheduler (off in the e2e server,
 * so tests choose the moment) would run it. Returns what the script prints.
 */
export function runAppScript(script: string, args: string[] = []) {
  return execFileSync(process.execPath, ["--import", "tsx", script, ...args], {
    env: { ...process.env, ...serverEnv() },
    encoding: "utf8",
    timeout: 30_000,
  });
}
