import { isTimeZone } from "~/modules/auth/user-validation";

/**
 * The profile's time-zone picker and the rule for saving it
 * (docs/decisions/0060-time-zones-that-never-move-by-themselves.md). The runtime's list of canonical
 * zones leaves out UTC, so UTC is added as a choice of its own, and the zone an
 * account already has is always one of the options: a select whose stored
 * value is missing shows its first option, and saving would move the account.
 */
export type TimeZoneOption = { value: string; label: string };
export type TimeZoneGroup = { region: string; zones: TimeZoneOption[] };

export const UTC_OPTION: TimeZoneOption = { value: "UTC", label: "UTC (no daylight saving)" };

function cityLabel(zone: string) {
  return zone.split("/").slice(1).join(" / ").replaceAll("_", " ") || zone;
}

/** UTC first, then one group per region ("Europe", "America"…), cities in A–Z order. */
export function timeZoneGroups(current: string): TimeZoneGroup[] {
  const zones = new Set(Intl.supportedValuesOf("timeZone"));
  if (current !== UTC_OPTION.value && isTimeZone(current)) zones.add(current);
  const byRegion = new Map<string, TimeZoneOption[]>();
  for (const zone of zones) {
    if (zone === UTC_OPTION.value) continue;
    const region = zone.includes("/") ? zone.split("/")[0]! : "Other";
    const options = byRegion.get(region) ?? [];
    options.push({ value: zone, label: cityLabel(zone) });
    byRegion.set(region, options);
  }
  const regions = [...byRegion.keys()].sort((a, b) => a.localeCompare(b));
  return [
    { region: "Universal", zones: [UTC_OPTION] },
    ...regions.map((region) => ({
      region,
      zones: byRegion.get(region)!.sort((a, b) => a.label.localeCompare(b.label)),
    })),
  ];
}

/**
 * The zone to store after a profile save. `shown` is the zone the form was
 * rendered with: a submitted zone equal to it is not a choice the person made
 * (a picker that could not show the stored zone, or a page opened before a
 * change made elsewhere), so the stored zone stays.
 */
export function zoneAfterProfileSave(stored: string, shown: string | undefined, submitted: string) {
  return submitted === shown ? stored : submitted;
}
