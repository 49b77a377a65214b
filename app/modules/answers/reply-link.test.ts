import { describe, expect, it } from "vitest";
import { replyMailto } from "./reply-link";

describe("replyMailto", () => {
  it("writes to the recipient with the item's title as the subject", () => {
    expect(replyMailto("ann@example.com", "Our garden")).toBe(
      "mailto:ann@example.com?subject=Re%3A%20Our%20garden",
    );
  });

  it("keeps an address's own ? and & from adding fields", () => {
    const link = new URL(replyMailto("a?cc=x&b@example.com", "Tea & cake?"));
    expect(decodeURIComponent(link.pathname)).toBe("a?cc=x&b@example.com");
    expect([...link.searchParams.keys()]).toEqual(["subject"]);
    expect(link.searchParams.get("subject")).toBe("Re: Tea & cake?");
  });
});
