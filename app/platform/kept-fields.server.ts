import { CSRF_FIELD } from "./csrf";
import type { KeptField } from "./resubmit";

const SECRET_FIELD = /pass|token|secret|csrf/i;

/**
 * What a page offers to send again is what a person typed into one of our
 * forms: a few KB at most, so a crafted post cannot make the answer huge
 * (docs/decisions/0101-body-limits-by-route.md).
 */
export const KEPT_FIELDS_MAX_CHARS = 4096;

/** At most `length` UTF-16 units of `text`, never half a surrogate pair. */
function truncate(text: string, length: number) {
  const cut = text.slice(0, length);
  return /[\uD800-\uDBFF]$/.test(cut) ? cut.slice(0, -1) : cut;
}

/**
 * A posted form's text fields, to offer them again (a refused token, a busy
 * database): never a password or a token's value, never the CSRF field, within
 * KEPT_FIELDS_MAX_CHARS.
 */
export function keptFields(formData: FormData | null): KeptField[] {
  if (!formData) return [];
  const fields: KeptField[] = [];
  let room = KEPT_FIELDS_MAX_CHARS;
  for (const [name, value] of formData) {
    if (typeof value !== "string" || name === CSRF_FIELD) continue;
    if (name.length >= room) break;
    room -= name.length;
    const secret = SECRET_FIELD.test(name);
    const kept = secret ? "" : truncate(value, room);
    room -= kept.length;
    fields.push({ name, value: kept, secret });
  }
  return fields;
}
