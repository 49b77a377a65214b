import { singleton } from "./singleton.server";

/**
 * Requests that ended without doing their work, counted since this process
 * started, by why (docs/decisions/0239-one-cross-site-gate.md): each is one
 * line of the request log (server/request-log.ts), never a stack trace, and
 * the admin's System Health shows the counts. Per process and in memory, like
 * the uptime beside them: a flood of them costs no row and no disk.
 */
export const DROP_REASONS = [
  "went away",
  "cross-site",
  "too slow",
  "too large",
  "too many",
  "unavailable",
] as const;

export type DropReason = (typeof DROP_REASONS)[number];

/** Refusals by their status, whoever wrote them (the server's body limit, a route, a rate limit). */
const REFUSED_BY_STATUS: Partial<Record<number, DropReason>> = {
  408: "too slow",
  413: "too large",
  429: "too many",
  503: "unavailable",
};

/** Why an answer with `status` refused its request, or null when it did not. */
export function refusalOf(status: number): DropReason | null {
  return REFUSED_BY_STATUS[status] ?? null;
}

export type DroppedRequestCounts = Record<DropReason, number>;

// The server's bundle counts and the app's bundle reads: one count for the process.
const counts = singleton(
  "dropped-requests",
  (): DroppedRequestCounts =>
    Object.fromEntries(DROP_REASONS.map((reason) => [reason, 0])) as DroppedRequestCounts,
);

export function countDroppedRequest(reason: DropReason) {
  counts[reason] += 1;
}

/** A copy of the counts so far. */
export function droppedRequestCounts(): DroppedRequestCounts {
  return { ...counts };
}
