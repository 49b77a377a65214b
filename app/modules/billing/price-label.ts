/**
 * A Stripe price in words: "$5.00 a month", "¥500 a year", "€12.00 every 3 months".
 * Stripe gives amounts in the currency's smallest unit (cents; yen have none).
 */
export type PriceFacts = {
  unitAmount: number;
  currency: string;
  interval?: "day" | "week" | "month" | "year" | null;
  intervalCount?: number | null;
};

export function priceLabel({ unitAmount, currency, interval, intervalCount }: PriceFacts) {
  const format = new Intl.NumberFormat("en-US", {
    style: "currency",
    currency: currency.toUpperCase(),
  });
  const exponent = format.resolvedOptions().maximumFractionDigits ?? 2;
  const amount = format.format(unitAmount / 10 ** exponent);
  if (!interval) return amount;
  const count = intervalCount ?? 1;
  return count === 1 ? `${amount} a ${interval}` : `${amount} every ${count} ${interval}s`;
}
