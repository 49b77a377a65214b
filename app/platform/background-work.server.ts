import { singleton } from "~/platform/singleton.server";

const running = singleton("background-work", () => new Set<Promise<unknown>>());

/**
 * Work the response should not wait for (and whose duration must not leak,
 * such as whether an account exists). Failures are logged; shutdown waits
 * (app/lifecycle.server.ts).
 */
export function runInBackground(label: string, task: () => Promise<unknown>) {
  const work = task()
    .catch((error) => console.error(`[background] ${label} failed`, error))
    .finally(() => running.delete(work));
  running.add(work);
}

export const waitForBackgroundWork = () => Promise.allSettled([...running]);
