/** The billing intervals a price can be worded in. */
const INTERVALS = ["day", "week", "month", "year"] as const;

/**
 * A Stripe price's facts. Stripe's `recurring.interval` is an open list: a value it adds later
 * arrives as any string (the `stripe` types say so since 22.4).
 */
export type PriceFacts = {
  unitAmount: number;
  currency: string;
  interval?: string | null;
  intervalCount?: number | null;
};

/**
 * A Stripe price in words: "$5.00 a month", "¥500 a year", "€12.00 every 3 months".
 * Stripe gives amounts in the currency's smallest unit (cents; yen have none). Null for an
 * interval not worded here: the page then says the price is on Stripe's page.
 */
export function priceLabel({
  unitAmount,
  currency,
  interval,
  intervalCount,
}: PriceFacts): string | null {
  const format = new Intl.NumberFormat("en-US", {
    style: "currency",
    currency: currency.toUpperCase(),
  });
  const exponent = format.resolvedOptions().maximumFractionDigits ?? 2;
  const amount = format.format(unitAmount / 10 ** exponent);
  if (!interval) return amount;
  if (!(INTERVALS as readonly string[]).includes(interval)) return null;
  const count = intervalCount ?? 1;
  return count === 1 ? `${amount} a ${interval}` : `${amount} every ${count} ${interval}s`;
}
