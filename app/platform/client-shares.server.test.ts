import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { ClientShares, clientShareBytesFor } from "./client-shares.server";
import { MemoryBudget } from "./memory-budget.server";

const MiB = 1024 * 1024;

describe("a fair share per client", () => {
  test("a client has at most its number of unfinished bodies; others are admitted meanwhile", () => {
    const shares = new ClientShares(new MemoryBudget(64 * MiB), 3);
    const greedy = [1, 2, 3].map(() => shares.admit("203.0.113.5"));
    expect(greedy.every(Boolean)).toBe(true);
    expect(shares.admit("203.0.113.5")).toBeNull();
    expect(shares.admit("198.51.100.7")).not.toBeNull();
    // A body that arrived whole makes room for the next, though its bytes are still held.
    greedy[0]!.finish();
    expect(shares.admit("203.0.113.5")).not.toBeNull();
  });

  test("a client past its share of bytes waits for its own, then is refused; another client is not held up", async () => {
    const budget = new MemoryBudget(64 * MiB);
    const shares = new ClientShares(budget, 16, 8 * MiB);
    const first = shares.admit("greedy")!;
    expect(await first.reservation.take(8 * MiB, { waitMs: 0 })).toBe(true);
    const second = shares.admit("greedy")!;
    expect(await second.reservation.take(1, { waitMs: 20 })).toBe(false);
    const fair = shares.admit("fair")!;
    expect(await fair.reservation.take(8 * MiB, { waitMs: 0 })).toBe(true);
    // Its own first body gone, the client's next takes the room.
    const waiting = second.reservation.take(MiB, { waitMs: 1_000 });
    first.reservation.release();
    expect(await waiting).toBe(true);
    expect(budget.usedBytes).toBe(9 * MiB);
  });

  test("the process's budget still bounds every client together", async () => {
    const budget = new MemoryBudget(10 * MiB);
    const shares = new ClientShares(budget, 16, 8 * MiB);
    expect(await shares.admit("a")!.reservation.take(6 * MiB, { waitMs: 0 })).toBe(true);
    expect(await shares.admit("b")!.reservation.take(6 * MiB, { waitMs: 20 })).toBe(false);
  });

  test("whatever the order of admissions, charges and releases, nothing is left held and no client is remembered", () => {
    const op = fc.oneof(
      fc.record({ kind: fc.constant("admit" as const), client: fc.constantFrom("a", "b", "c") }),
      fc.record({ kind: fc.constant("take" as const), at: fc.nat(20), bytes: fc.nat(3 * MiB) }),
      fc.record({ kind: fc.constant("finish" as const), at: fc.nat(20) }),
      fc.record({ kind: fc.constant("release" as const), at: fc.nat(20) }),
    );
    fc.assert(
      fc.asyncProperty(fc.array(op, { maxLength: 60 }), async (ops) => {
        const budget = new MemoryBudget(16 * MiB);
        const shares = new ClientShares(budget, 4, 4 * MiB);
        const bodies = [];
        for (const step of ops) {
          if (step.kind === "admit") {
            const body = shares.admit(step.client);
            if (body) bodies.push(body);
            continue;
          }
          const body = bodies[step.at % Math.max(1, bodies.length)];
          if (!body) continue;
          if (step.kind === "take") await body.reservation.take(step.bytes, { waitMs: 0 });
          if (step.kind === "finish") body.finish();
          if (step.kind === "release") body.reservation.release();
          expect(budget.usedBytes).toBeLessThanOrEqual(budget.capacityBytes);
        }
        for (const body of bodies) body.reservation.release();
        expect(budget.usedBytes).toBe(0);
        expect(shares.clientCount).toBe(0);
      }),
    );
  });

  test("a share is an eighth of the budget, never under 8 MiB, never over the budget", () => {
    expect(clientShareBytesFor(76 * MiB)).toBe(9.5 * MiB);
    expect(clientShareBytesFor(28 * MiB)).toBe(8 * MiB);
    expect(clientShareBytesFor(4 * MiB)).toBe(4 * MiB);
  });
});
