import { MemoryBudget, memoryBudget, type Reservation } from "./memory-budget.server";
import { singleton } from "./singleton.server";

/**
 * The memory budget divided fairly (docs/memory-budget.md, "A fair share per
 * client"): one client (one address, app/platform/client-address.ts's
 * `clientShareKey`) may have at most MAX_UNFINISHED_BODIES_PER_CLIENT bodies
 * arriving at once and hold at most its share of the budget's bytes. A
 * client past its share waits in its own line, then is told "try later",
 * while everyone else goes on: a budget anyone could fill would be a door
 * anyone could close.
 */

const MiB = 1024 * 1024;

/**
 * Bodies one client may be sending at once: a household behind one address,
 * or a phone uploading several photos, stays far below it; 600 slow bodies
 * from one address are refused past it.
 */
export const MAX_UNFINISHED_BODIES_PER_CLIENT = 16;

/** The budget's bytes one client may hold: an eighth, but never less than 8 MiB (a header image read whole). */
export function clientShareBytesFor(budgetBytes: number) {
  return Math.min(budgetBytes, Math.max(8 * MiB, Math.floor(budgetBytes / 8)));
}

/** One body of one client: what it holds of the budget, and its place among the client's unfinished bodies. */
export type ClientBody = {
  reservation: Pick<Reservation, "bytes" | "take" | "release">;
  /** Its last byte arrived (or never will): it no longer counts among the unfinished. */
  finish(): void;
};

type Client = { bodies: number; share: MemoryBudget };

export class ClientShares {
  readonly #clients = new Map<string, Client>();

  constructor(
    readonly budget: MemoryBudget,
    readonly maxBodies = MAX_UNFINISHED_BODIES_PER_CLIENT,
    readonly shareBytes = clientShareBytesFor(budget.capacityBytes),
  ) {}

  /** Clients with a body arriving or bytes held; for tests and the operator's figures. */
  get clientCount() {
    return this.#clients.size;
  }

  /** A place for one more body of `client`; null when it already has its share of unfinished bodies. */
  admit(client: string): ClientBody | null {
    let entry = this.#clients.get(client);
    if (!entry) {
      entry = { bodies: 0, share: new MemoryBudget(this.shareBytes) };
      this.#clients.set(client, entry);
    }
    if (entry.bodies >= this.maxBodies) return null;
    entry.bodies++;
    const own = entry.share.open();
    const shared = this.budget.open();
    let finished = false;
    const finish = () => {
      if (finished) return;
      finished = true;
      entry.bodies--;
      this.#forgetIdle(client, entry);
    };
    const reservation: ClientBody["reservation"] = {
      get bytes() {
        return shared.bytes;
      },
      // The client's own line first (it waits behind its own bodies), then the process's.
      async take(more, { waitMs }) {
        const started = performance.now();
        if (!(await own.take(more, { waitMs }))) return false;
        const left = Math.max(0, waitMs - (performance.now() - started));
        return shared.take(more, { waitMs: left });
      },
      release: () => {
        own.release();
        shared.release();
        finish();
        this.#forgetIdle(client, entry);
      },
    };
    return { reservation, finish };
  }

  /** A client with nothing arriving and nothing held is forgotten, so the map holds only the present. */
  #forgetIdle(client: string, entry: Client) {
    if (entry.bodies === 0 && entry.share.usedBytes === 0 && this.#clients.get(client) === entry) {
      this.#clients.delete(client);
    }
  }
}

/** The process's shares, of the process's budget. */
export const clientShares = singleton("client-shares", () => new ClientShares(memoryBudget));
