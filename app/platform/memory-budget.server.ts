import v8 from "node:v8";
import { singleton } from "./singleton.server";

/**
 * One budget of bytes for everything that arrives from outside and is held
 * in memory while it is read: request bodies, multipart fields, SMTP
 * sessions, webhook posts, fetched pages (docs/memory-budget.md). Each door
 * reserves what it will hold before it holds it and releases it when done;
 * when the budget is spent, new work waits a little for room and is then
 * refused with that door's own "try later", never an out-of-memory.
 *
 * The server bundle and the app bundle each have a copy of this module, so
 * the one budget lives in the process-wide singleton registry.
 */

const MiB = 1024 * 1024;

/** The share of the heap cap that arriving bytes may hold at once. */
export const ARRIVALS_SHARE_OF_HEAP = 0.25;
export const BUDGET_FLOOR_BYTES = 16 * MiB;
export const BUDGET_CEILING_BYTES = 512 * MiB;

/**
 * The written formula: a quarter of V8's heap cap (`--max-old-space-size`,
 * which fly.toml sets from the machine's memory), at least 16 MiB and at
 * most 512 MiB. The rest of the heap is the app's own working set.
 */
export function budgetBytesFor(heapLimitBytes: number): number {
  const share = Math.floor(heapLimitBytes * ARRIVALS_SHARE_OF_HEAP);
  return Math.min(BUDGET_CEILING_BYTES, Math.max(BUDGET_FLOOR_BYTES, share));
}

/** Bytes held by one piece of work; released once (later calls do nothing). */
export type Reservation = {
  readonly bytes: number;
  /** Takes `more` bytes at once if the budget has them; false (and nothing taken) if not. */
  grow(more: number): boolean;
  /** Takes `more` bytes, waiting in line up to `waitMs` for room; false if none came in time. */
  take(more: number, options: { waitMs: number }): Promise<boolean>;
  release(): void;
};

/** A charge this small goes ahead of those waiting in line when it fits. */
const SMALL_CHARGE_BYTES = 256 * 1024;

type Waiter = { bytes: number; grant: (granted: boolean) => void };

export class MemoryBudget {
  #used = 0;
  readonly #waiting: Waiter[] = [];

  constructor(readonly capacityBytes: number) {}

  get usedBytes() {
    return this.#used;
  }

  /** A reservation holding nothing yet, to grow as bytes arrive. */
  open(): Reservation {
    let held = 0;
    let released = false;
    const budget = this;
    return {
      get bytes() {
        return held;
      },
      grow(more) {
        if (released || !budget.#hasRoomNow(more)) return false;
        budget.#used += more;
        held += more;
        return true;
      },
      async take(more, { waitMs }) {
        if (this.grow(more)) return true;
        if (released || more > budget.capacityBytes || waitMs <= 0) return false;
        const granted = await budget.#waitFor(more, waitMs);
        if (!granted) return false;
        if (released) {
          budget.#give(more);
          return false;
        }
        held += more;
        return true;
      },
      release() {
        if (released) return;
        released = true;
        budget.#give(held);
        held = 0;
      },
    };
  }

  /** A reservation of `bytes` now, or null when the budget does not have them (or others wait first). */
  tryReserve(bytes: number): Reservation | null {
    const reservation = this.open();
    return reservation.grow(bytes) ? reservation : null;
  }

  /**
   * A reservation of `bytes`, waiting in line up to `waitMs` for room;
   * null when none came in time. A request larger than the whole budget is
   * refused at once: no amount of waiting would make room for it.
   */
  async reserve(bytes: number, { waitMs }: { waitMs: number }): Promise<Reservation | null> {
    const reservation = this.open();
    return (await reservation.take(bytes, { waitMs })) ? reservation : null;
  }

  /**
   * Room now, and no one waiting before (those in line are served first),
   * except for a small charge: a sign-in form must not wait behind a message
   * being parsed, and small charges end quickly, so they never starve a large one.
   */
  #hasRoomNow(bytes: number) {
    return (this.#waiting.length === 0 || bytes <= SMALL_CHARGE_BYTES) && this.#fits(bytes);
  }

  #fits(bytes: number) {
    return bytes >= 0 && this.#used + bytes <= this.capacityBytes;
  }

  #waitFor(bytes: number, waitMs: number): Promise<boolean> {
    return new Promise((resolve) => {
      const waiter: Waiter = {
        bytes,
        grant: (granted) => {
          clearTimeout(timer);
          resolve(granted);
        },
      };
      const timer = setTimeout(() => {
        const at = this.#waiting.indexOf(waiter);
        if (at !== -1) this.#waiting.splice(at, 1);
        resolve(false);
        this.#wakeWaiters();
      }, waitMs);
      timer.unref?.();
      this.#waiting.push(waiter);
    });
  }

  #give(bytes: number) {
    this.#used -= bytes;
    this.#wakeWaiters();
  }

  /** First in, first served: a large waiter is not overtaken by small ones forever. */
  #wakeWaiters() {
    while (this.#waiting.length > 0) {
      const first = this.#waiting[0]!;
      if (!this.#fits(first.bytes)) return;
      this.#waiting.shift();
      this.#used += first.bytes;
      first.grant(true);
    }
  }
}

/** The process's budget, sized from this process's heap cap. */
export const memoryBudget = singleton(
  "memory-budget",
  () => new MemoryBudget(budgetBytesFor(v8.getHeapStatistics().heap_size_limit)),
);

/** How long new work waits for room before a door answers "try later". */
export const BUDGET_WAIT_MS = 2_000;

/** What a door tells a client to wait before trying again when the budget is spent. */
export const BUDGET_RETRY_AFTER_SECONDS = 10;

const BUDGET_SPENT = "MemoryBudgetSpentError";

/** Thrown where the budget had no room in time; each door answers it as its own "try later". */
export class MemoryBudgetSpentError extends Error {
  override name = BUDGET_SPENT;
  constructor(readonly door: string) {
    super(`The memory budget has no room for ${door} right now`);
  }
}

/** By name, since the server bundle's copy of the class is not the app's. */
export function isMemoryBudgetSpent(error: unknown): boolean {
  for (let cause = error; cause instanceof Error; cause = cause.cause) {
    if (cause.name === BUDGET_SPENT) return true;
  }
  return false;
}

/** What every HTTP door says when the budget is spent. */
export const BUSY_MESSAGE = "The server is busy. Please try again in a few seconds.";

/**
 * The app's answer to a MemoryBudgetSpentError: 503, and when to try again.
 * A plain Response, so a resource route (a webhook) keeps its status.
 */
export function tryLaterResponse() {
  return new Response(BUSY_MESSAGE, {
    status: 503,
    headers: {
      "Content-Type": "text/plain; charset=utf-8",
      "Retry-After": String(BUDGET_RETRY_AFTER_SECONDS),
    },
  });
}
