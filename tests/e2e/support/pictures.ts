import { expect, type Locator } from "@playwright/test";

/**
 * Waits for a picture to have loaded, and checks it is the one expected by its
 * natural width. A picture can be visible before its bytes arrive (and a lazy
 * one only starts loading near the viewport), so the width is polled after
 * scrolling to it rather than read once.
 */
export async function expectPictureLoaded(picture: Locator, naturalWidth: number) {
  await picture.scrollIntoViewIfNeeded();
  await expect(picture).toBeVisible();
  await expect
    .poll(() => picture.evaluate((image: HTMLImageElement) => image.naturalWidth), {
      message: "the picture's natural width once loaded",
    })
    .toBe(naturalWidth);
}
