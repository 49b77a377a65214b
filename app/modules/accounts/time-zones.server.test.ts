import { describe, expect, test } from "vitest";
import { timeZoneGroups, zoneAfterProfileSave } from "./time-zones.server";

const values = (groups: ReturnType<typeof timeZoneGroups>) =>
  groups.flatMap((group) => group.zones.map((zone) => zone.value));

describe("the profile's time-zone picker", () => {
  test("offers UTC first, as a choice of its own", () => {
    const groups = timeZoneGroups("Europe/Paris");
    expect(groups[0]).toEqual({
      region: "Universal",
      zones: [{ value: "UTC", label: "UTC (no daylight saving)" }],
    });
    expect(values(groups).filter((zone) => zone === "UTC")).toHaveLength(1);
  });

  test("groups cities by region, labelled without the region or underscores", () => {
    const america = timeZoneGroups("UTC").find((group) => group.region === "America")!;
    expect(america.zones).toContainEqual({ value: "America/New_York", label: "New York" });
    expect(america.zones).toContainEqual({
      value: "America/North_Dakota/New_Salem",
      label: "North Dakota / New Salem",
    });
    const labels = america.zones.map((zone) => zone.label);
    expect(labels).toEqual([...labels].sort((a, b) => a.localeCompare(b)));
  });

  test("always includes the account's own zone, even one the runtime does not list", () => {
    expect(values(timeZoneGroups("UTC"))).not.toContain("US/Eastern");
    expect(values(timeZoneGroups("US/Eastern"))).toContain("US/Eastern");
    expect(values(timeZoneGroups("Not/AZone"))).not.toContain("Not/AZone");
  });
});

describe("saving the profile", () => {
  test("keeps the stored zone when the submitted one is what the form showed", () => {
    expect(zoneAfterProfileSave("UTC", "UTC", "UTC")).toBe("UTC");
    // A picker that fell back to another zone than the stored one changes nothing.
    expect(zoneAfterProfileSave("UTC", "Africa/Abidjan", "Africa/Abidjan")).toBe("UTC");
  });

  test("takes the zone the person picked", () => {
    expect(zoneAfterProfileSave("UTC", "UTC", "Europe/Paris")).toBe("Europe/Paris");
    expect(zoneAfterProfileSave("UTC", undefined, "Asia/Tokyo")).toBe("Asia/Tokyo");
  });
});
