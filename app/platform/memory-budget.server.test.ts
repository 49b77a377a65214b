import fc from "fast-check";
import { describe, expect, test } from "vitest";
import {
  BUDGET_CEILING_BYTES,
  BUDGET_FLOOR_BYTES,
  budgetBytesFor,
  isMemoryBudgetSpent,
  MemoryBudget,
  MemoryBudgetSpentError,
} from "./memory-budget.server";

const MiB = 1024 * 1024;

describe("the budget's size", () => {
  test("is a quarter of the heap cap, between the floor and the ceiling", () => {
    expect(budgetBytesFor(256 * MiB)).toBe(64 * MiB);
    expect(budgetBytesFor(32 * MiB)).toBe(BUDGET_FLOOR_BYTES);
    expect(budgetBytesFor(8192 * MiB)).toBe(BUDGET_CEILING_BYTES);
  });
});

describe("reservations", () => {
  test("are refused past the capacity and given back on release, once", () => {
    const budget = new MemoryBudget(100);
    const first = budget.tryReserve(60);
    expect(first?.bytes).toBe(60);
    expect(budget.tryReserve(41)).toBeNull();
    first?.release();
    first?.release();
    expect(budget.usedBytes).toBe(0);
    expect(budget.tryReserve(100)).not.toBeNull();
  });

  test("grow only while the budget has room", () => {
    const budget = new MemoryBudget(100);
    const held = budget.tryReserve(10)!;
    expect(held.grow(80)).toBe(true);
    expect(held.grow(20)).toBe(false);
    expect(held.bytes).toBe(90);
    held.release();
    expect(held.grow(1)).toBe(false);
    expect(budget.usedBytes).toBe(0);
  });

  test("wait in line for room, first come first served, and give up after their wait", async () => {
    const budget = new MemoryBudget(4 * MiB);
    const held = budget.tryReserve(3 * MiB)!;
    const large = budget.reserve(2 * MiB, { waitMs: 1_000 });
    const next = budget.reserve(MiB, { waitMs: 1_000 });
    // Room for the second exists, but it waits behind the first.
    expect(budget.tryReserve(MiB)).toBeNull();
    held.release();
    expect((await large)?.bytes).toBe(2 * MiB);
    expect((await next)?.bytes).toBe(MiB);
    expect(await budget.reserve(2 * MiB, { waitMs: 10 })).toBeNull();
    expect(await budget.reserve(5 * MiB, { waitMs: 1_000 })).toBeNull();
  });

  test("a small charge that fits goes ahead of a large one waiting: a sign-in never waits behind a parse", async () => {
    const budget = new MemoryBudget(4 * MiB);
    const held = budget.tryReserve(3 * MiB)!;
    const large = budget.reserve(2 * MiB, { waitMs: 1_000 });
    expect(budget.tryReserve(10 * 1024)?.bytes).toBe(10 * 1024);
    expect(budget.tryReserve(512 * 1024)).toBeNull();
    held.release();
    expect((await large)?.bytes).toBe(2 * MiB);
  });

  test("never hold more than the capacity, whatever the order of takes and releases", () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.nat(120), fc.boolean(), fc.nat(40)), { maxLength: 60 }),
        (steps) => {
          const budget = new MemoryBudget(100);
          const held = [];
          for (const [bytes, releaseOne, more] of steps) {
            const taken = budget.tryReserve(bytes);
            if (taken) held.push(taken);
            held.at(-1)?.grow(more);
            if (releaseOne) held.shift()?.release();
            expect(budget.usedBytes).toBeLessThanOrEqual(100);
            expect(budget.usedBytes).toBe(held.reduce((sum, one) => sum + one.bytes, 0));
          }
          for (const one of held) one.release();
          expect(budget.usedBytes).toBe(0);
        },
      ),
    );
  });
});

test("a spent budget is recognised through causes and by name", () => {
  const wrapped = new Error("wrapped", { cause: new MemoryBudgetSpentError("smtp") });
  expect(isMemoryBudgetSpent(wrapped)).toBe(true);
  expect(isMemoryBudgetSpent(new Error("other"))).toBe(false);
});
