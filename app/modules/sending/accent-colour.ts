import { DEFAULT_ACCENT } from "#emails/newsletter-themes";

/**
 * The accent colour's rules, shared by the Newsletter look form in the browser
 * (the contrast shown next to the field) and the server that refuses a colour
 * (docs/decisions/0152-premium-shown-as-it-is.md).
 */

/** WCAG AA for normal text: white on the accent, and the accent as link colour on white. */
export const MIN_ACCENT_CONTRAST = 4.5;

export const HEX_COLOUR = /^#[0-9a-fA-F]{6}$/;

export const TOO_LIGHT =
  "This colour is too light to read white text on, or links in: please choose a darker one";

/** WCAG 2 contrast ratio of a `#rrggbb` colour against white. */
export function contrastWithWhite(hex: string) {
  const channels = [1, 3, 5].map((start) => {
    const value = Number.parseInt(hex.slice(start, start + 2), 16) / 255;
    return value <= 0.03928 ? value / 12.92 : ((value + 0.055) / 1.055) ** 2.4;
  });
  const luminance = 0.2126 * channels[0]! + 0.7152 * channels[1]! + 0.0722 * channels[2]!;
  return 1.05 / (luminance + 0.05);
}

/** What the field shows beside it: the colour used, its contrast, and whether it is enough. */
export function accentContrast(typed: string) {
  const colour = typed.trim() === "" ? DEFAULT_ACCENT : typed.trim();
  if (!HEX_COLOUR.test(colour)) return null;
  // Rounded down: a colour shown as 4.5:1 must not be refused for being 4.49.
  const ratio = Math.floor(contrastWithWhite(colour) * 10) / 10;
  return {
    colour: colour.toLowerCase(),
    ours: typed.trim() === "",
    ratio: `${ratio.toFixed(1)}:1`,
    enough: contrastWithWhite(colour) >= MIN_ACCENT_CONTRAST,
  };
}

/** The form's names: the hex field, the colour picker, and the hex field's value as the page showed it. */
export const ACCENT_FIELDS = {
  text: "accentColor",
  picker: "accentPicker",
  shown: "accentShown",
} as const;

/** The picker's value for what the hex field holds (a picker always holds a colour). */
export function pickerColour(text: string) {
  return HEX_COLOUR.test(text.trim()) ? text.trim().toLowerCase() : DEFAULT_ACCENT;
}

/**
 * Which of the two the sender changed. With JavaScript they are kept in step;
 * without it they are not, so a hex field left as shown and a picker moved
 * mean the picker's colour. Anything else is the hex field's.
 */
export function chosenAccent(formData: FormData): FormData {
  const text = formData.get(ACCENT_FIELDS.text);
  const picker = formData.get(ACCENT_FIELDS.picker);
  const shown = formData.get(ACCENT_FIELDS.shown);
  if (typeof text !== "string" || typeof picker !== "string" || typeof shown !== "string") {
    return formData;
  }
  if (text !== shown || picker.toLowerCase() === pickerColour(shown)) return formData;
  const chosen = new FormData();
  for (const [key, value] of formData) chosen.append(key, value);
  chosen.set(ACCENT_FIELDS.text, picker);
  return chosen;
}
