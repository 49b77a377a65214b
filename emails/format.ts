const UNITS = ["B", "KB", "MB", "GB"] as const;

/**
 * Sizes in B, KB, MB or GB, base 1024, one decimal: the same words in the app
 * and in the e-mail.
 */
export function formatBytes(bytes: number) {
  if (!Number.isFinite(bytes)) return "Unlimited";
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return unit === 0 ? `${value} B` : `${value.toFixed(1)} ${UNITS[unit]}`;
}
