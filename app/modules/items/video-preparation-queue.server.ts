import { singleton } from "~/platform/singleton.server";

/**
 * Asks for videos to be prepared, without loading ffmpeg's side of the app
 * (app/modules/items/video-preparation.server.ts) until a pass runs.
 */

const queue = singleton("video-preparation-queue", () => ({
  running: null as Promise<void> | null,
  again: false,
}));

/**
 * Starts a pass now, in the background, unless one is running (then it runs
 * once more after it). Never throws and is never awaited by a save; whatever
 * it does not finish, the scheduler's minute pass picks up.
 */
export function requestVideoPass() {
  if (queue.running) {
    queue.again = true;
    return;
  }
  queue.running = (async () => {
    do {
      queue.again = false;
      const { runVideoPass } = await import("./video-preparation.server");
      await runVideoPass();
    } while (queue.again);
  })()
    .catch((error) => console.error("[videos] pass failed", error))
    .finally(() => {
      queue.running = null;
    });
}

/** Resolves once the pass in flight (if any) is over: for shutdown and tests. */
export async function videoPassSettled() {
  while (queue.running) await queue.running;
}
