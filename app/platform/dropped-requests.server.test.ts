import { expect, test } from "vitest";
import {
  countDroppedRequest,
  DROP_REASONS,
  droppedRequestCounts,
  refusalOf,
} from "./dropped-requests.server";

test("a refusal is known by its status, whoever wrote it", () => {
  expect([408, 413, 429, 503].map(refusalOf)).toEqual([
    "too slow",
    "too large",
    "too many",
    "unavailable",
  ]);
  expect([200, 302, 400, 403, 404, 500].map(refusalOf)).toEqual([
    null,
    null,
    null,
    null,
    null,
    null,
  ]);
});

test("counts by why, from zero, and hands out a copy", () => {
  const start = droppedRequestCounts();
  expect(Object.keys(start)).toEqual([...DROP_REASONS]);
  countDroppedRequest("went away");
  countDroppedRequest("went away");
  countDroppedRequest("cross-site");
  const now = droppedRequestCounts();
  expect(now["went away"]).toBe(start["went away"] + 2);
  expect(now["cross-site"]).toBe(start["cross-site"] + 1);
  now["too large"] = 99;
  expect(droppedRequestCounts()["too large"]).toBe(start["too large"]);
});
