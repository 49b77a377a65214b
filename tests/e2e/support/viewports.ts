import { test } from "../fixtures";

/** The two widths issue 36's browser tests run at: a phone and a desktop. */
export const PHONE_AND_DESKTOP = [
  { name: "phone", width: 375, height: 740 },
  { name: "desktop", width: 1280, height: 800 },
] as const;

/** Declares the tests `define` adds once per width, each in a describe named after it. */
export function atPhoneAndDesktop(title: string, define: () => void) {
  for (const viewport of PHONE_AND_DESKTOP) {
    test.describe(`${title} on a ${viewport.width} px ${viewport.name}`, () => {
      test.use({ viewport: { width: viewport.width, height: viewport.height } });
      define();
    });
  }
}
