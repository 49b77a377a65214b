import fc from "fast-check";
import { describe, expect, test } from "vitest";
import {
  isCameraFileName,
  titleForUpload,
  titleFromFileName,
  withoutSiteName,
} from "./item-titles";

describe("a page's title without its site's name", () => {
  test.each([
    [
      "Bread for beginners | The Guardian",
      "https://www.theguardian.com/food/bread",
      null,
      "Bread for beginners",
    ],
    ["Lullaby for Sam - YouTube", "https://www.youtube.com/watch?v=abc", null, "Lullaby for Sam"],
    ["Lullaby for Sam - YouTube", "https://youtu.be/abc", "YouTube", "Lullaby for Sam"],
    ["Storm warning – BBC News", "https://www.bbc.co.uk/news/uk-1", null, "Storm warning"],
    ["Sourdough — Wikipedia", "https://en.wikipedia.org/wiki/Sourdough", null, "Sourdough"],
    ["Tomato soup · Serious Eats", "https://example.com/soup", "Serious Eats", "Tomato soup"],
  ])("%s", (title, url, siteName, expected) => {
    expect(withoutSiteName(title, url, siteName)).toBe(expected);
  });

  test.each([
    // The last part is not the site: kept whole.
    ["Cats - The Musical", "https://www.theguardian.com/stage/cats", null],
    ["Part 1 | Part 2", "https://example.com/", null],
    // Nothing but the site's name: kept.
    [" | YouTube", "https://www.youtube.com/", null],
    ["YouTube", "https://www.youtube.com/", null],
    // Hyphens inside words are not separators.
    ["Long-term care", "https://long.example/", null],
    ["A title", "not an address", "Site"],
  ])("%s stays as it is", (title, url, siteName) => {
    expect(withoutSiteName(title, url, siteName)).toBe(title);
  });

  test("whatever the title, what is left is its start, and never empty", () => {
    fc.assert(
      fc.property(
        fc.string({ maxLength: 80 }),
        fc.constantFrom(" | ", " - ", " – ", " — ", " · ", " :: ", "|", "-"),
        fc.string({ maxLength: 30 }),
        fc.webUrl(),
        fc.option(fc.string({ maxLength: 20 })),
        (start, separator, end, url, siteName) => {
          const title = `${start}${separator}${end}`;
          const result = withoutSiteName(title, url, siteName);
          expect(title.startsWith(result)).toBe(true);
          if (title.trim()) expect(result.trim()).not.toBe("");
        },
      ),
    );
  });
});

describe("a photo named by its camera", () => {
  test.each([
    "IMG_2041.jpg",
    "IMG_E2041.JPG",
    "IMG 2041.heic",
    "IMG-20261105-WA0001.jpeg",
    "PXL_20261105_093012345.MP.jpg",
    "PXL_20261105_093012345.jpg",
    "20261105_093012.jpg",
    "1000012345.jpg",
    "DSC01234.JPG",
    "DSCN0042.jpg",
    "DSCF1234.jpg",
    "DSC_1234.jpg",
    "P1010001.JPG",
    "GOPR0042.jpg",
    "image.jpg",
    "image0.jpeg",
    "photo.png",
    "IMG_2041 (1).jpg",
  ])("%s is a camera's name", (name) => {
    expect(isCameraFileName(name)).toBe(true);
  });

  test.each([
    "beach.jpg",
    "Sam's first day.jpg",
    "garden-2026.jpg",
    "summer-menu.v2.pdf",
    "Pancakes.png",
    "Image of the week.jpg",
    "DSC trip to Rome.jpg",
  ])("%s is a person's name for it", (name) => {
    expect(isCameraFileName(name)).toBe(false);
  });

  test("is titled by its day, in the saver's zone; a person's name is kept", () => {
    const taken = new Date("2026-11-04T23:30:00Z");
    const photo = { kind: "photo" as const, date: taken, timeZone: "Europe/Berlin" };
    expect(titleFromFileName("IMG_2041.jpg", photo)).toBe(
      taken.getFullYear() === new Date().getFullYear()
        ? "Photo, Thu 5 Nov"
        : "Photo, Thu 5 Nov 2026",
    );
    expect(
      titleFromFileName("IMG_2041.jpg", { ...photo, date: new Date("2019-06-01T12:00:00Z") }),
    ).toBe("Photo, Sat 1 Jun 2019");
    expect(titleFromFileName("beach_day.jpg", photo)).toBe("beach day");
  });
});

describe("the title of photos, a clip or files left without one", () => {
  const at = { date: new Date("2026-11-04T23:30:00Z"), timeZone: "Europe/Berlin" };
  const thisYear = at.date.getFullYear() === new Date().getFullYear();
  const day = (text: string) => (thisYear ? text : `${text} 2026`);

  test("is the first file's: a camera's name by the day it was taken, else the day given", () => {
    expect(titleForUpload("photo", [{ name: "IMG_2041.jpg", takenOn: "2019-06-01" }], at)).toBe(
      "Photo, Sat 1 Jun 2019",
    );
    expect(titleForUpload("photo", [{ name: "IMG_2041.jpg" }, { name: "beach.jpg" }], at)).toBe(
      day("Photo, Thu 5 Nov"),
    );
    expect(titleForUpload("video", [{ name: "VID_20261104_2330.mp4" }], at)).toBe(
      day("Video, Thu 5 Nov"),
    );
    // A name the person gave is theirs, whatever the day.
    expect(titleForUpload("photo", [{ name: "beach_day.jpg", takenOn: "2019-06-01" }], at)).toBe(
      "beach day",
    );
    expect(titleForUpload("photo", [], at)).toBe("");
  });

  test("the camera's day is its own in every zone", () => {
    for (const timeZone of ["Pacific/Kiritimati", "Pacific/Pago_Pago", "UTC"]) {
      const taken = [{ name: "IMG_0001.heic", takenOn: "2019-06-01" }];
      expect(titleForUpload("photo", taken, { ...at, timeZone })).toBe("Photo, Sat 1 Jun 2019");
    }
  });
});
