import type { Locator, Page } from "@playwright/test";

/**
 * Counts a person's taps on a phone (docs/taps.md): each press of a button,
 * link or box, each field tapped into before typing (none for a field that
 * already has the cursor), a link opened from an e-mail, and two for a photo
 * (the picker, then the photo). Typing itself is not counted.
 */
export class TapCounter {
  count = 0;

  constructor(private readonly page: Page) {}

  async tap(target: Locator) {
    this.count += 1;
    await target.click();
  }

  /** Types `text` into `field`, tapping into it first unless the cursor is already there. */
  async type(field: Locator, text: string) {
    const hasCursor = await field.evaluate((element) => element === document.activeElement);
    if (!hasCursor) await this.tap(field);
    await field.fill(text);
  }

  /** The link in an e-mail, opened in this browser. */
  async openLink(url: string) {
    this.count += 1;
    await this.page.goto(url);
  }

  async pickFiles(picker: Locator, files: Parameters<Locator["setInputFiles"]>[0]) {
    this.count += 2;
    await picker.setInputFiles(files);
  }
}
