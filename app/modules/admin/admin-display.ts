/**
 * Display rules of the admin and security dashboards (docs/product-rules.md, "Admin dashboards"),
 * shared by the server and the browser so both render the same text.
 */

export type Level = "normal" | "success" | "warning" | "critical";

export const THRESHOLDS = {
  failedLoginsWarning: 10,
  unauthorizedAccessWarning: 5,
  criticalAlertsCritical: 0,
  memoryPercentWarning: 80,
  queryMsWarning: 100,
  storagePercentWarning: 80,
  retentionPercentSuccess: 70,
} as const;

/** Above the number is a warning (docs/product-rules.md, Admin dashboards: "above", so the number itself is not). */
const above = (value: number, limit: number, level: Level): Level =>
  value > limit ? level : "normal";

export const levels = {
  failedLogins: (count: number) => above(count, THRESHOLDS.failedLoginsWarning, "warning"),
  unauthorizedAccess: (count: number) =>
    above(count, THRESHOLDS.unauthorizedAccessWarning, "warning"),
  criticalAlerts: (count: number) => above(count, THRESHOLDS.criticalAlertsCritical, "critical"),
  memory: (percent: number) => above(percent, THRESHOLDS.memoryPercentWarning, "warning"),
  queryMs: (ms: number) => above(ms, THRESHOLDS.queryMsWarning, "warning"),
  storage: (percent: number) => above(percent, THRESHOLDS.storagePercentWarning, "warning"),
  retention: (percent: number) => above(percent, THRESHOLDS.retentionPercentSuccess, "success"),
};

/** Uptime as days and hours, hours and minutes, or minutes. */
export function formatUptime(totalSeconds: number) {
  const minutes = Math.floor(totalSeconds / 60);
  const hours = Math.floor(minutes / 60);
  const days = Math.floor(hours / 24);
  if (days > 0) return `${days}d ${hours % 24}h`;
  if (hours > 0) return `${hours}h ${minutes % 60}m`;
  return `${minutes}m`;
}

/**
 * What the dropped and refused requests were, the most frequent first: "3 went away, 1
 * cross-site"; "none" when there were none (app/platform/dropped-requests.server.ts).
 */
export function formatDroppedRequests(counts: Record<string, number>) {
  const seen = Object.entries(counts)
    .filter(([, count]) => count > 0)
    .sort(([, a], [, b]) => b - a);
  return seen.length > 0 ? seen.map(([reason, count]) => `${count} ${reason}`).join(", ") : "none";
}

/** Cents as dollars with two decimals: 1497 → "$14.97". */
export function formatCents(cents: number) {
  const dollars = Math.abs(cents) / 100;
  const text = dollars.toLocaleString("en-US", {
    minimumFractionDigits: 2,
    maximumFractionDigits: 2,
  });
  return `${cents < 0 ? "-" : ""}$${text}`;
}

export function formatPercent(value: number) {
  return `${value.toFixed(1)}%`;
}

export function formatNumber(value: number, digits = 0) {
  return value.toLocaleString("en-US", {
    minimumFractionDigits: digits,
    maximumFractionDigits: digits,
  });
}

export const EVENT_LABELS: Record<string, string> = {
  failed_login: "Failed login",
  rate_limit_exceeded: "Rate limit exceeded",
  admin_access: "Admin access",
  password_reset: "Password reset",
  suspicious_activity: "Suspicious activity",
  unauthorized_access: "Unauthorized access",
  two_factor_enrolled: "Two-factor set up",
  two_factor_disabled: "Two-factor turned off",
  two_factor_failed: "Wrong two-factor code",
  recovery_code_used: "Recovery code used",
  inbound_mail_refused: "Mail to a folder refused",
};
