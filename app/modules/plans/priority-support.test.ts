import { expect, test } from "vitest";
import { prioritySupportAddress } from "./priority-support";

test("the Premium address is the support address tagged +premium", () => {
  expect(prioritySupportAddress("support@thoughtfully.app")).toBe(
    "support+premium@thoughtfully.app",
  );
  expect(prioritySupportAddress("help+web@example.com")).toBe("help+premium@example.com");
});
