import { env } from "~/platform/env.server";
import { singleton } from "~/platform/singleton.server";

/**
 * Asks for link previews to be fetched, without loading the fetching
 * (app/modules/items/link-previews.server.ts) until a pass runs: saving a link
 * calls it on every save.
 */

const queue = singleton("link-preview-queue", () => ({
  running: null as Promise<void> | null,
  again: false,
}));

/**
 * Starts a preview pass now, in the background, unless one is running (then
 * it runs once more after it). Never throws and is never awaited by a save;
 * whatever it does not finish, the scheduler's minute pass picks up.
 */
export function requestPreviewPass() {
  if (env.LINK_PREVIEWS === "off") return;
  if (queue.running) {
    queue.again = true;
    return;
  }
  queue.running = (async () => {
    do {
      queue.again = false;
      const { runPreviewPass } = await import("./link-previews.server");
      await runPreviewPass();
    } while (queue.again);
  })()
    .catch((error) => console.error("[previews] pass failed", error))
    .finally(() => {
      queue.running = null;
    });
}

/** Resolves once the pass in flight (if any) is over: for shutdown and tests. */
export async function previewPassSettled() {
  while (queue.running) await queue.running;
}
