import { encodeWord } from "nodemailer/lib/mime-funcs/index.js";

/**
 * The `List-ID` header of a folder's newsletter, as RFC 2919 wants it:
 * `"Family" <folder-12.thoughtfully.app>`. Handed to nodemailer as prepared:
 * left to itself it encodes the whole value as one MIME word, and mail apps
 * then cannot find the `<id>` to group or filter by. Only the name may be
 * encoded (a non-ASCII name becomes encoded words); the id stays readable.
 */
export function listIdHeader(folder: { id: number; name: string }, host: string) {
  const name = folder.name.replace(/[\r\n"\\]/g, "").trim();
  const phrase = /^[\x20-\x7e]*$/.test(name) ? `"${name}"` : encodeWord(name, "Q", 52);
  return { prepared: true, value: `${phrase} <folder-${folder.id}.${host}>` };
}
