import { z } from "~/platform/zod";

/**
 * The spellings of yes and no a form or an API client sends: a checkbox's "on",
 * a script's "true"/"1" in multipart, a JSON boolean (docs/decisions/0153-api-takes-the-seeds-shapes.md).
 * Anything else stays as it is, so `z.boolean()` refuses it.
 */
const TRUE = new Set(["true", "on", "1", "yes"]);
const FALSE = new Set(["false", "off", "0", "no"]);

export function readBoolean(value: unknown): unknown {
  if (typeof value === "number") return value === 1 ? true : value === 0 ? false : value;
  if (typeof value !== "string") return value;
  const word = value.trim().toLowerCase();
  if (TRUE.has(word)) return true;
  if (FALSE.has(word)) return false;
  return value;
}

/** A boolean field taking every spelling above; a missing field is `false`. */
export const formBoolean = () =>
  z
    .union([z.boolean(), z.string(), z.number()])
    .transform(readBoolean)
    .pipe(z.boolean())
    .default(false)
    .describe('true or false; also "true", "on", "1" or "false", "off", "0"');
