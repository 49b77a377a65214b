import fc from "fast-check";
import { expect, test } from "vitest";
import { WorkLane } from "./work-lane.server";

test("a lane runs at most its width at once, in arrival order, and turns away who waited too long", async () => {
  const lane = new WorkLane(1);
  const first = await lane.enter({ waitMs: 1_000 });
  expect(first).not.toBeNull();
  const order: string[] = [];
  const second = lane.enter({ waitMs: 1_000 }).then((leave) => {
    order.push("second");
    return leave;
  });
  const third = lane.enter({ waitMs: 1_000 }).then((leave) => {
    order.push("third");
    return leave;
  });
  expect(await lane.enter({ waitMs: 20 })).toBeNull();
  first!();
  first!();
  (await second)!();
  (await third)!();
  expect(order).toEqual(["second", "third"]);
  expect(lane.running).toBe(0);
});

test("whatever the order of arrivals, give-ups and leavings, no more than the width run and none is lost", async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.integer({ min: 1, max: 3 }),
      fc.array(
        fc.record({
          holdMs: fc.integer({ min: 0, max: 5 }),
          waitMs: fc.integer({ min: 0, max: 8 }),
        }),
        {
          maxLength: 12,
        },
      ),
      async (width, jobs) => {
        const lane = new WorkLane(width);
        let inside = 0;
        let most = 0;
        await Promise.all(
          jobs.map(async ({ holdMs, waitMs }) => {
            const leave = await lane.enter({ waitMs });
            if (!leave) return;
            inside++;
            most = Math.max(most, inside);
            await new Promise((resolve) => setTimeout(resolve, holdMs));
            inside--;
            leave();
          }),
        );
        expect(most).toBeLessThanOrEqual(width);
        expect(lane.running).toBe(0);
      },
    ),
    { numRuns: 40 },
  );
});
