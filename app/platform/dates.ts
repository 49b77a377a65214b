/**
 * The app's one date format (docs/decisions/0150-one-date-format.md): a day reads
 * "Mon 30 Nov 2026", a moment "Mon 30 Nov 2026, 00:01" (24-hour clock), always
 * in the zone given, the sender's own for anything a sender reads. A day close
 * enough that its year goes without saying (the next delivery) may drop it:
 * "Mon 30 Nov". Every place that shows a date uses these; a repository test
 * (tests/repository/date-format.test.ts) keeps hand-made formats out.
 */

/** Fixed names: ICU versions disagree ("Sep" or "Sept"), and the server and the browser must not. */
export const MONTHS = [
  "Jan",
  "Feb",
  "Mar",
  "Apr",
  "May",
  "Jun",
  "Jul",
  "Aug",
  "Sep",
  "Oct",
  "Nov",
  "Dec",
];

type DateParts = { weekday: string; day: string; month: string; year: string; time: string };

const formatters = new Map<string, Intl.DateTimeFormat>();

/** One formatter per zone, kept: building one is the costly step, and users share a few zones. */
function formatterFor(timeZone: string) {
  let formatter = formatters.get(timeZone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat("en-US", {
      timeZone,
      weekday: "short",
      day: "numeric",
      month: "numeric",
      year: "numeric",
      hour: "2-digit",
      minute: "2-digit",
      hourCycle: "h23",
    });
    formatters.set(timeZone, formatter);
  }
  return formatter;
}

function partsOf(date: Date, timeZone: string): DateParts {
  const found: Record<string, string> = {};
  for (const part of formatterFor(timeZone).formatToParts(date)) found[part.type] = part.value;
  return {
    weekday: found.weekday ?? "",
    day: found.day ?? "",
    month: MONTHS[Number(found.month) - 1] ?? "",
    year: found.year ?? "",
    time: `${found.hour}:${found.minute}`,
  };
}

/** "Mon 30 Nov 2026", or "Mon 30 Nov" with `year: false`. */
export function formatDay(date: Date, timeZone: string, options: { year?: boolean } = {}) {
  const { weekday, day, month, year } = partsOf(date, timeZone);
  return options.year === false
    ? `${weekday} ${day} ${month}`
    : `${weekday} ${day} ${month} ${year}`;
}

/** "Mon 30 Nov 2026, 00:01". */
export function formatDateTime(date: Date, timeZone: string) {
  const { weekday, day, month, year, time } = partsOf(date, timeZone);
  return `${weekday} ${day} ${month} ${year}, ${time}`;
}

/** "00:25" when `date` is on `now`'s day in the zone, else "Tue 1 Dec, 00:25": a time soon to come. */
export function formatSoon(date: Date, timeZone: string, now: Date) {
  const when = partsOf(date, timeZone);
  const today = partsOf(now, timeZone);
  const sameDay = when.day === today.day && when.month === today.month && when.year === today.year;
  return sameDay ? when.time : `${formatDay(date, timeZone, { year: false })}, ${when.time}`;
}

/**
 * "Mon 30 Nov 2026, 00:01 UTC", from an ISO string: operators' pages (admin,
 * outbox) read UTC, as the logs do, and format in the component, where only
 * the serialized string arrives.
 */
export function formatUtc(iso: string) {
  return `${formatDateTime(new Date(iso), "UTC")} UTC`;
}

/** "2026-11-30": the day in the zone given, for file names, which sort by it. */
export function isoDay(date: Date, timeZone: string) {
  const { day, month, year } = partsOf(date, timeZone);
  const monthNumber = MONTHS.indexOf(month) + 1;
  return `${year}-${String(monthNumber).padStart(2, "0")}-${day.padStart(2, "0")}`;
}

/** The zone this browser's clock is in, for dates made on the device (a picked photo's day). */
export function deviceTimeZone() {
  return Intl.DateTimeFormat().resolvedOptions().timeZone;
}
