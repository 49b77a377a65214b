import { env } from "~/platform/env.server";
import type { SendFaultPoint } from "./fault-points";

let reached = 0;

/**
 * Under test only: the process kills itself with SIGKILL the `hit`-th time it
 * reaches the point named in THOUGHTFULLY_FAULT_POINT, so the crash tests stop
 * the very code production runs at an exact instruction. Without the setting
 * (always, outside NODE_ENV=test) this does nothing.
 */
export function faultPoint(point: SendFaultPoint) {
  const fault = env.THOUGHTFULLY_FAULT_POINT;
  if (fault?.point !== point) return;
  reached += 1;
  if (reached === fault.hit) process.kill(process.pid, "SIGKILL");
}
