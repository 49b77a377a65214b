import { describe, expect, test } from "vitest";
import { createAcceptanceTurns } from "./acceptance-turn.server";

const settled = async (promise: Promise<unknown>) => {
  let state = "pending";
  promise.then(
    () => (state = "resolved"),
    () => (state = "rejected"),
  );
  await new Promise((resolve) => setImmediate(resolve));
  return state;
};

describe("acceptance turns", () => {
  test("one message holds the turn; the next waits until it is given back", async () => {
    const turns = createAcceptanceTurns();
    const first = turns.turn();
    const second = turns.turn();
    expect(await settled(first.take())).toBe("resolved");
    const secondTakes = second.take();
    expect(await settled(secondTakes)).toBe("pending");
    first.giveBack();
    expect(await settled(secondTakes)).toBe("resolved");
  });

  test("turns go in the order messages reach their end, not the order they started", async () => {
    const turns = createAcceptanceTurns();
    const [holder, startedFirst, startedSecond] = [turns.turn(), turns.turn(), turns.turn()];
    await holder.take();
    const secondEnds = startedSecond.take();
    const firstEnds = startedFirst.take();
    holder.giveBack();
    expect(await settled(secondEnds)).toBe("resolved");
    expect(await settled(firstEnds)).toBe("pending");
    startedSecond.giveBack();
    expect(await settled(firstEnds)).toBe("resolved");
  });

  test("a message given up while waiting leaves the queue and its end is refused", async () => {
    const turns = createAcceptanceTurns();
    const [holder, failed, next] = [turns.turn(), turns.turn(), turns.turn()];
    await holder.take();
    const failedEnds = failed.take();
    const nextEnds = next.take();
    failed.giveBack();
    expect(await settled(failedEnds)).toBe("rejected");
    expect(turns.waiting).toBe(1);
    holder.giveBack();
    expect(await settled(nextEnds)).toBe("resolved");
  });

  test("a message that never reached its end gives back nothing; the turn stays free", async () => {
    const turns = createAcceptanceTurns();
    turns.turn().giveBack();
    expect(await settled(turns.turn().take())).toBe("resolved");
  });

  test("a turn given back cannot be taken again", async () => {
    const turns = createAcceptanceTurns();
    const once = turns.turn();
    await once.take();
    once.giveBack();
    await expect(once.take()).rejects.toThrow("given back");
  });
});

describe("several acceptance windows", () => {
  test("as many messages as windows hold one at once; the next waits for any of them", async () => {
    const turns = createAcceptanceTurns(3);
    const holders = [turns.turn(), turns.turn(), turns.turn()];
    for (const holder of holders) expect(await settled(holder.take())).toBe("resolved");
    expect(turns.held).toBe(3);
    const fourth = turns.turn();
    const fourthEnds = fourth.take();
    expect(await settled(fourthEnds)).toBe("pending");
    // No order between windows: the second message's mark may land first.
    holders[1]!.giveBack();
    expect(await settled(fourthEnds)).toBe("resolved");
    expect(turns.held).toBe(3);
    for (const holder of [holders[0]!, holders[2]!, fourth]) holder.giveBack();
    expect(turns.held).toBe(0);
  });

  test("a message given up while waiting frees nothing it did not hold", async () => {
    const turns = createAcceptanceTurns(2);
    const [a, b, given, next] = [turns.turn(), turns.turn(), turns.turn(), turns.turn()];
    await a.take();
    await b.take();
    const givenEnds = given.take();
    const nextEnds = next.take();
    given.giveBack();
    expect(await settled(givenEnds)).toBe("rejected");
    expect(turns.held).toBe(2);
    a.giveBack();
    expect(await settled(nextEnds)).toBe("resolved");
    expect(turns.held).toBe(2);
  });

  test("there is at least one window", () => {
    expect(() => createAcceptanceTurns(0)).toThrow("whole number");
  });
});
