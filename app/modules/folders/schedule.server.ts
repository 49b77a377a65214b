/**
 * When a folder is delivered (docs/product-rules.md, "Time"): 00:01 in the
 * sender's IANA time zone on the scheduled day, stored and compared in UTC.
 *
 * Pure functions: no database, no clock (callers pass `now`).
 */

import { MONTHS } from "~/platform/dates";
import { ordinal } from "~/utils/ordinal";

export type Schedule = {
  frequency: "daily" | "weekly" | "biweekly" | "monthly";
  /** 1 = Monday … 7 = Sunday (weekly and biweekly). */
  dayOfWeek: number;
  /** 1–31 (monthly); 29–31 fall back to the last day of a shorter month. */
  dayOfMonth: number | null;
  /**
   * The one delivery the sender skipped (docs/decisions/0213-skip-the-next-issue.md): passed
   * over while it is one of the schedule's, so every recomputation keeps the skip.
   */
  skippedSendAt?: Date | null;
};

/** Every delivery goes out at this local wall time (docs/product-rules.md, Time). */
export const SEND_TIME = { hour: 0, minute: 1 } as const;

/** Biweekly: the next matching weekday at least this many local days after the last send. */
export const BIWEEKLY_MIN_DAYS_AFTER_LAST_SEND = 13;

const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;
const WEEKDAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"];

export type LocalParts = {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
};

/*
 * Time-zone arithmetic. Intl.DateTimeFormat (Node's ICU time-zone data) is the
 * one source we trust for offsets and DST rules, and no tz library is
 * installed, so the two directions are written here: Intl answers "what does
 * the wall clock say at this instant"; the reverse is solved from that.
 */
const partFormatters = new Map<string, Intl.DateTimeFormat>();

function partFormatter(timeZone: string) {
  let formatter = partFormatters.get(timeZone);
  if (!formatter) {
    // Throws a RangeError for a name that is not an IANA zone.
    formatter = new Intl.DateTimeFormat("en-US", {
      timeZone,
      hourCycle: "h23",
      year: "numeric",
      month: "numeric",
      day: "numeric",
      hour: "numeric",
      minute: "numeric",
      second: "numeric",
    });
    partFormatters.set(timeZone, formatter);
  }
  return formatter;
}

/** The wall-clock reading in `timeZone` at the instant `date`. */
export function localParts(date: Date | number, timeZone: string): LocalParts {
  const parts: LocalParts = { year: 0, month: 0, day: 0, hour: 0, minute: 0, second: 0 };
  for (const part of partFormatter(timeZone).formatToParts(date)) {
    if (part.type in parts) parts[part.type as keyof LocalParts] = Number(part.value);
  }
  return parts;
}

/** A wall-clock reading as milliseconds, as if it were UTC (for arithmetic and comparison). */
function wallMs(parts: LocalParts) {
  return Date.UTC(parts.year, parts.month - 1, parts.day, parts.hour, parts.minute, parts.second);
}

/** The zone's UTC offset in milliseconds at `instant` (wall time minus UTC). */
function offsetAt(instant: number, timeZone: string) {
  const wholeSecond = Math.floor(instant / 1000) * 1000;
  return wallMs(localParts(wholeSecond, timeZone)) - wholeSecond;
}

/**
 * The UTC instant of a local wall time. The offsets in force a day before and
 * a day after bracket any DST change near it; each gives a candidate instant,
 * kept when Intl reads the same wall time back.
 * - Repeated wall time (clocks go back): the earlier instant.
 * - Missing wall time (clocks jump forward): the time is read with the offset
 *   from before the jump, i.e. moved forward by the length of the gap (RFC 5545,
 *   Temporal's "compatible"): 00:01 in a 00:00→01:00 jump becomes 01:01.
 */
export function zonedTimeToUtc(
  year: number,
  month: number,
  day: number,
  hour: number,
  minute: number,
  timeZone: string,
): Date {
  const wall = Date.UTC(year, month - 1, day, hour, minute);
  const before = offsetAt(wall - DAY_MS, timeZone);
  const after = offsetAt(wall + DAY_MS, timeZone);
  const matches = [...new Set([before, after])]
    .map((offset) => wall - offset)
    .filter((instant) => wallMs(localParts(instant, timeZone)) === wall);
  if (matches.length > 0) return new Date(Math.min(...matches));
  return new Date(wall - before);
}

/* Calendar dates as whole days since 1970-01-01 (no time zone involved). */
function dayNumber(year: number, month: number, day: number) {
  return Math.round(Date.UTC(year, month - 1, day) / DAY_MS);
}

function calendarDate(dayNum: number) {
  const date = new Date(dayNum * DAY_MS);
  return {
    year: date.getUTCFullYear(),
    month: date.getUTCMonth() + 1,
    day: date.getUTCDate(),
    /** 1 = Monday … 7 = Sunday */
    weekday: date.getUTCDay() === 0 ? 7 : date.getUTCDay(),
  };
}

function daysInMonth(year: number, month: number) {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

function localDayNumber(date: Date | number, timeZone: string) {
  const parts = localParts(date, timeZone);
  return dayNumber(parts.year, parts.month, parts.day);
}

function checkSchedule(schedule: Schedule) {
  const { frequency, dayOfWeek, dayOfMonth } = schedule;
  if ((frequency === "weekly" || frequency === "biweekly") && !isWhole(dayOfWeek, 1, 7)) {
    throw new RangeError(`dayOfWeek must be 1–7 (got ${dayOfWeek})`);
  }
  if (frequency === "monthly" && dayOfMonth !== null && !isWhole(dayOfMonth, 1, 31)) {
    throw new RangeError(`dayOfMonth must be 1–31 (got ${dayOfMonth})`);
  }
}

function isWhole(value: number, min: number, max: number) {
  return Number.isInteger(value) && value >= min && value <= max;
}

function isScheduledDay(schedule: Schedule, dayNum: number) {
  const date = calendarDate(dayNum);
  switch (schedule.frequency) {
    case "daily":
      return true;
    case "weekly":
    case "biweekly":
      return date.weekday === schedule.dayOfWeek;
    case "monthly": {
      // A monthly folder without a day (old rows) goes out on the 1st, the dialog's default.
      const wanted = schedule.dayOfMonth ?? 1;
      return date.day === Math.min(wanted, daysInMonth(date.year, date.month));
    }
  }
}

/**
 * The next delivery strictly after `now`: 00:01 local time in `timeZone` on the
 * next scheduled day. Biweekly counts from `lastSentAt`: the next matching
 * weekday at least 13 days after its local date (without it, the next matching
 * weekday). A skipped delivery is passed over for the one after it (a biweekly
 * schedule's, two weeks on).
 */
export function nextSendAt(
  schedule: Schedule,
  timeZone: string,
  now: Date,
  lastSentAt?: Date | null,
): Date {
  checkSchedule(schedule);
  const nowMs = now.getTime();
  if (Number.isNaN(nowMs)) throw new RangeError("now is not a valid date");

  // Start a day early: when a day is skipped (Pacific/Apia, 30 Dec 2011), that
  // day's delivery falls on the next local date and may still be ahead of now.
  let first = localDayNumber(nowMs, timeZone) - 1;
  if (schedule.frequency === "biweekly" && lastSentAt && !Number.isNaN(lastSentAt.getTime())) {
    first = Math.max(
      first,
      localDayNumber(lastSentAt, timeZone) + BIWEEKLY_MIN_DAYS_AFTER_LAST_SEND,
    );
  }
  // Any schedule matches within 62 consecutive days (a monthly one within 31).
  const skipped = schedule.skippedSendAt?.getTime();
  for (let dayNum = first; dayNum < first + 64; dayNum++) {
    if (!isScheduledDay(schedule, dayNum)) continue;
    const { year, month, day } = calendarDate(dayNum);
    const sendAt = zonedTimeToUtc(year, month, day, SEND_TIME.hour, SEND_TIME.minute, timeZone);
    if (sendAt.getTime() <= nowMs) continue;
    if (sendAt.getTime() !== skipped) return sendAt;
    // With the loop's own step, two weeks on: a biweekly schedule's next delivery.
    if (schedule.frequency === "biweekly") dayNum += 13;
  }
  throw new Error(`no delivery found for ${JSON.stringify(schedule)} in ${timeZone}`);
}

/** The send ledger's key for one scheduled occurrence: the UTC minute, "2026-11-23T00:01Z". */
export function occurrenceKey(sendAt: Date): string {
  const minute = Math.floor(sendAt.getTime() / MINUTE_MS) * MINUTE_MS;
  return `${new Date(minute).toISOString().slice(0, 16)}Z`;
}

/**
 * The next-delivery label (docs/product-rules.md, Folders and items): the
 * delivery's day in the user's zone, as "Mon 30 Nov", the same shape for every
 * folder (docs/decisions/0145-folder-cards-read-the-same.md). A delivery already
 * due (in the past, not yet sent) reads as today.
 */
export function nextDeliveryLabel(nextSend: Date | null, timeZone: string, now: Date): string {
  return deliveryLabels(timeZone, now)(nextSend);
}

/**
 * The local day of a delivery instant, remembered: deliveries are at 00:01 on
 * a few days ahead, so the senders of a zone share a handful of instants, and
 * each reading is an Intl `formatToParts`, the costliest step of the
 * dashboard's loader. Emptied when full, so it stays small.
 */
const deliveryDays = new Map<string, number>();
const DELIVERY_DAYS_KEPT = 10_000;

function deliveryDayNumber(nextSend: Date, timeZone: string) {
  const key = `${timeZone} ${nextSend.getTime()}`;
  let day = deliveryDays.get(key);
  if (day === undefined) {
    if (deliveryDays.size >= DELIVERY_DAYS_KEPT) deliveryDays.clear();
    day = localDayNumber(nextSend, timeZone);
    deliveryDays.set(key, day);
  }
  return day;
}

/** "Mon 30 Nov", as formatDay(…, { year: false }) writes it, from a calendar day: no time zone is involved any more. */
function shortDayLabel(dayNum: number) {
  const { weekday, day, month } = calendarDate(dayNum);
  return `${WEEKDAYS[weekday - 1]!.slice(0, 3)} ${day} ${MONTHS[month - 1]}`;
}

/** `nextDeliveryLabel` for a page of folders: today's date in the zone is read once, not per folder. */
export function deliveryLabels(timeZone: string, now: Date) {
  const today = localDayNumber(now, timeZone);
  return (nextSend: Date | null): string => {
    if (!nextSend || Number.isNaN(nextSend.getTime())) return "Not scheduled";
    return shortDayLabel(Math.max(deliveryDayNumber(nextSend, timeZone), today));
  };
}

/** "Weekly on Monday at 00:01", "Monthly on the 31st at 00:01", … */
export function scheduleLine(schedule: Schedule): string {
  const time = `${String(SEND_TIME.hour).padStart(2, "0")}:${String(SEND_TIME.minute).padStart(2, "0")}`;
  const weekday = WEEKDAYS[schedule.dayOfWeek - 1] ?? "Monday";
  switch (schedule.frequency) {
    case "daily":
      return `Daily at ${time}`;
    case "weekly":
      return `Weekly on ${weekday} at ${time}`;
    case "biweekly":
      return `Every two weeks on ${weekday} at ${time}`;
    case "monthly":
      return `Monthly on the ${ordinal(schedule.dayOfMonth ?? 1)} at ${time}`;
  }
}
