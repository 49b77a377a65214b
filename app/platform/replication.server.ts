import { getInstanceInfo, getInstanceInfoSync } from "litefs-js";
import { getReplayResponse } from "litefs-js/remix";
import { schedulerHold } from "#db/restore";
import { env } from "./env.server";

/**
 * One database across machines with LiteFS (docs/deploy.md): the primary
 * takes every write and alone runs the background jobs; a replica serves
 * reads. LiteFS names the primary in `LITEFS_DIR/.primary`, a file that only
 * replicas have; it can change at any time (a new lease holder), so it is read
 * on every check, never cached. Without LITEFS_DIR this machine is the only one.
 */
export async function primaryInstance() {
  if (!env.LITEFS_DIR) return { isPrimary: true, primary: null };
  const info = await getInstanceInfo(env.LITEFS_DIR);
  return { isPrimary: info.currentIsPrimary, primary: info.primaryInstance };
}

/** The same, at start: only the primary migrates the database (a replica's copy is read-only). */
export function isPrimaryAtStart() {
  return !env.LITEFS_DIR || getInstanceInfoSync(env.LITEFS_DIR).currentIsPrimary;
}

/**
 * On a replica, a request that may write (anything but GET and HEAD) is
 * answered with `fly-replay: instance=<primary>`, and Fly's proxy sends it to
 * the primary; the replica reads no body and writes nothing. The first call
 * of every action (through the CSRF check, or directly where there is none).
 */
export async function replayWritesToPrimary(request: Request) {
  if (request.method === "GET" || request.method === "HEAD") return;
  const { isPrimary, primary } = await primaryInstance();
  if (!isPrimary && primary) throw getReplayResponse(primary);
}

/** Why background jobs (sending, backups, sweeps) must not run now, or null when they may. */
export async function backgroundJobsBlocked(): Promise<string | null> {
  const hold = schedulerHold(env.BACKUP_DIR);
  if (hold) return `held after a restore (${hold.split("\n")[0]})`;
  const { isPrimary, primary } = await primaryInstance();
  if (!isPrimary) return `this machine is a replica; the primary is ${primary}`;
  return null;
}

let lastBlocked: string | null = null;

/**
 * Wraps a scheduled job so it runs only when this machine may run jobs,
 * checked at each tick: a replica promoted to primary starts ticking, a
 * demoted primary stops, and a restore's hold keeps everything still.
 */
export function onPrimaryOnly<T>(task: () => T | Promise<T>) {
  return async (): Promise<T | undefined> => {
    const blocked = await backgroundJobsBlocked();
    if (blocked !== lastBlocked) {
      console.info(blocked ? `[jobs] paused: ${blocked}` : "[jobs] running");
      lastBlocked = blocked;
    }
    if (blocked) return undefined;
    return task();
  };
}
