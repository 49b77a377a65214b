import { describe, expect, test } from "vitest";
import { priceLabel } from "./price-label";

describe("a Stripe price in words", () => {
  test("monthly and yearly prices in cents", () => {
    expect(priceLabel({ unitAmount: 500, currency: "usd", interval: "month" })).toBe(
      "$5.00 a month",
    );
    expect(priceLabel({ unitAmount: 4800, currency: "eur", interval: "year" })).toBe(
      "€48.00 a year",
    );
  });

  test("a currency without minor units, several intervals, and a one-off price", () => {
    expect(priceLabel({ unitAmount: 500, currency: "jpy", interval: "month" })).toBe(
      "¥500 a month",
    );
    expect(
      priceLabel({ unitAmount: 1200, currency: "gbp", interval: "month", intervalCount: 3 }),
    ).toBe("£12.00 every 3 months");
    expect(priceLabel({ unitAmount: 999, currency: "usd", interval: null })).toBe("$9.99");
  });

  test("an interval Stripe adds later is not worded", () => {
    expect(priceLabel({ unitAmount: 500, currency: "usd", interval: "fortnight" })).toBeNull();
  });
});
