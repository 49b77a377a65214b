import fc from "fast-check";
import { SECRET_ROUTES } from "~/platform/secret-paths";

const hex = (character: string) =>
  [...new TextEncoder().encode(character)]
    .map((byte) => `%${byte.toString(16).padStart(2, "0")}`)
    .join("");

/** One character as sent: itself, percent-encoded in either case, or (letters) in the other case. */
const spelled = (character: string, casing: boolean) =>
  fc.constantFrom(
    character,
    hex(character),
    hex(character).toUpperCase(),
    casing ? character.toUpperCase() : character,
  );

const spelledWord = (word: string, casing: boolean) =>
  fc
    .tuple(...[...word].map((character) => spelled(character, casing)))
    .map((parts) => parts.join(""));

/** What may stand between segments and still reach the same route: WHATWG URL parsing resolves these. */
const separator = fc.constantFrom(
  "/",
  "//",
  "\\",
  "/./",
  "/%2e/",
  "/x/../",
  "/x/%2E%2e/",
  "/x/.%2e/",
);
const code = fc.stringMatching(/^[A-Za-z0-9_-]{16,40}\.[A-Za-z0-9_-]{16,43}$/);
/** The static segments before each listed route's first code. */
const prefixes = SECRET_ROUTES.map((route) =>
  route.path.split("/:")[0]!.split("/").filter(Boolean),
);
const tail = fc.constantFrom("", "/", "//", ".data", "/1/0", "/1/0.data", "?url=x", "/?a=b");

/**
 * A route of app/platform/secret-paths.ts with a code in place of its first
 * dynamic segment, spelled in ways the router would still serve: letters in
 * either case or percent-encoded, dot segments, doubled and back slashes,
 * the single-fetch `.data`, more segments, a query. `prefix` is the part
 * before the code.
 */
export const spelledSecretAddress = fc
  .tuple(
    fc.constantFrom(...prefixes),
    code,
    tail,
    fc.array(separator, { minLength: 4, maxLength: 4 }),
  )
  .chain(([words, secret, end, separators]) =>
    fc
      .tuple(...words.map((word) => spelledWord(word, true)), spelledWord(secret, false))
      .map((parts) => {
        const spelledParts = parts.map((part, index) => `${separators[index]}${part}`);
        return {
          secret,
          prefix: spelledParts.slice(0, -1).join(""),
          target: `${spelledParts.join("")}${end}`,
        };
      }),
  );
