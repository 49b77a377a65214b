import { describe, expect, test } from "vitest";
import { everyoneLeftLine, nextIssueLine } from "./next-issue-line";

const mum = { name: "Mum", email: "mum@example.com" };
const dad = { name: "Dad", email: "dad@example.com" };

describe("the line that counts who gets the next issue", () => {
  test("everyone: the count", () => {
    expect(nextIssueLine({ listed: 3, reaching: 3, missing: [] })).toBe("3 recipients");
    expect(nextIssueLine({ listed: 1, reaching: 1, missing: [] })).toBe("1 recipient");
  });

  test("some: how many of how many, and why the others do not", () => {
    expect(
      nextIssueLine({ listed: 3, reaching: 2, missing: [{ ...mum, because: "bounced" }] }),
    ).toBe("2 of 3 will get it: Mum's address bounced");
    expect(
      nextIssueLine({
        listed: 3,
        reaching: 1,
        missing: [
          { ...mum, because: "complaint" },
          { name: "recipient", email: dad.email, because: "unsubscribed" },
        ],
      }),
    ).toBe("1 of 3 will get it: Mum reported spam, dad@example.com unsubscribed");
  });

  test("none, however they left: no active recipients", () => {
    expect(nextIssueLine({ listed: 0, reaching: 0, missing: [] })).toBe("No active recipients");
    expect(
      nextIssueLine({
        listed: 2,
        reaching: 0,
        missing: [
          { ...mum, because: "bounced" },
          { ...dad, because: "complaint" },
        ],
      }),
    ).toBe("No active recipients");
  });
});

describe("who left a folder every recipient left", () => {
  test("by the names the sender gave, the address for one without", () => {
    expect(everyoneLeftLine([dad])).toBe("Dad unsubscribed");
    expect(everyoneLeftLine([mum, dad])).toBe("Mum and Dad unsubscribed");
    expect(everyoneLeftLine([mum, { name: "recipient", email: "gran@example.com" }, dad])).toBe(
      "Mum, gran@example.com and Dad unsubscribed",
    );
  });
});
