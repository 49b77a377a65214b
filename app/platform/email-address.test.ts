import Database from "better-sqlite3";
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { canonicalEmail, mailboxKey, mailboxLikePattern } from "./email-address";

describe("canonicalEmail", () => {
  test.each([
    ["victim@example.test", "victim@example.test"],
    ["  victim@example.test  ", "victim@example.test"],
    ["VICTIM@EXAMPLE.TEST", "victim@example.test"],
    ["Victim@Example.Test", "victim@example.test"],
    ["victim@ｅxample.test", "victim@example.test"],
    ["victim@bücher.test", "victim@xn--bcher-kva.test"],
    ["victim@BÜCHER.test", "victim@xn--bcher-kva.test"],
    ["victim@xn--bcher-kva.test", "victim@xn--bcher-kva.test"],
    ["first.last+tag@example.co.uk", "first.last+tag@example.co.uk"],
  ])("%j is %j", (input, canonical) => {
    expect(canonicalEmail(input)).toBe(canonical);
  });

  test.each([
    "<victim@example.test>",
    "Victim <victim@example.test>",
    '"Victim" <victim@example.test>',
    "victim@example.test,",
    "victim@example.test, other@example.test",
    "victim@example.test;",
    "victim@example.test (work)",
    '"victim"@example.test',
    "victim @example.test",
    "victim@example.test.",
    "mailto:victim@example.test",
    "victim@exa%6dple.test",
    "victim@@example.test",
    ".victim@example.test",
    "vic..tim@example.test",
    "victim@localhost",
    "victim@1.2.3.4",
    "victim",
    "",
    `${"a".repeat(250)}@example.test`,
  ])("%j is not a bare address", (input) => {
    expect(canonicalEmail(input)).toBeNull();
  });
});

describe("mailboxKey", () => {
  test.each([
    ["ada@example.com", "ada@example.com"],
    ["Ada@Example.com", "ada@example.com"],
    ["ada+news@example.com", "ada@example.com"],
    ["ada+news+more@example.com", "ada@example.com"],
    ["ADA+News@Example.COM", "ada@example.com"],
    ["a.da@example.com", "a.da@example.com"],
    ["a.da+x@example.com", "a.da@example.com"],
    ["+news@example.com", "+news@example.com"],
    ["a@gmail.com", "a@gmail.com"],
    ["A.b@gmail.com", "ab@gmail.com"],
    ["a.b+news@gmail.com", "ab@gmail.com"],
    ["A.b+news@googlemail.com", "ab@gmail.com"],
    ["a.b.c@GoogleMail.com", "abc@gmail.com"],
    ["a.b@mail.gmail.com", "a.b@mail.gmail.com"],
    ["a.b@gmail.co", "a.b@gmail.co"],
    ["ab@notgmail.com", "ab@notgmail.com"],
    ["zoë+x@bücher.test", "zoë@xn--bcher-kva.test"],
  ])("%j is the mailbox %j", (input, key) => {
    expect(mailboxKey(input)).toBe(key);
  });

  test.each([
    ["ada@example.com", "adb@example.com"],
    ["ada@example.com", "ada@example.org"],
    ["a.da@example.com", "ada@example.com"],
    ["ab@gmail.com", "a@gmail.com"],
    ["ab@gmail.com", "ab@example.com"],
    ["ab@googlemail.com", "ab@googlemail.co"],
    ["+news@example.com", "+other@example.com"],
    ["a+b@example.com", "b@example.com"],
  ])("%j and %j are different mailboxes", (first, second) => {
    expect(mailboxKey(first)).not.toBe(mailboxKey(second));
  });

  test("has no key for what is not a bare address", () => {
    expect(mailboxKey("Ada <ada+x@gmail.com>")).toBeNull();
  });

  const localWord = fc.stringMatching(/^[a-z0-9]{1,8}$/);
  const mailbox = fc.record({
    words: fc.array(localWord, { minLength: 1, maxLength: 3 }),
    domain: fc.constantFrom("gmail.com", "example.com", "mail.example.org"),
  });
  /** Another spelling of the same mailbox: case, a +tag, and on Gmail dots and googlemail.com. */
  const spellingOf = ({ words, domain }: { words: string[]; domain: string }) =>
    fc
      .record({
        upper: fc.array(fc.boolean(), { minLength: 16, maxLength: 16 }),
        tag: fc.option(fc.stringMatching(/^[a-z0-9-]{0,6}(?:[.+][a-z0-9-]{1,4})?$/), {
          nil: undefined,
        }),
        dots: fc.array(fc.boolean(), { minLength: 16, maxLength: 16 }),
        googlemail: fc.boolean(),
      })
      .map(({ upper, tag, dots, googlemail }) => {
        const gmail = domain === "gmail.com";
        const letters = [...words.join(gmail ? "" : ".")];
        const local = letters
          .map((letter, index) => {
            const cased = upper[index % upper.length] ? letter.toUpperCase() : letter;
            const dotted = gmail && index > 0 && dots[index % dots.length];
            return dotted ? `.${cased}` : cased;
          })
          .join("");
        const spelledDomain = gmail && googlemail ? "GoogleMail.com" : domain.toUpperCase();
        return `${local}${tag === undefined ? "" : `+${tag}`}@${spelledDomain}`;
      });

  test("every spelling of one mailbox has that mailbox's key", () => {
    fc.assert(
      fc.property(
        mailbox.chain((box) => fc.tuple(spellingOf(box), spellingOf(box))),
        ([first, second]) => {
          expect(mailboxKey(first)).not.toBeNull();
          expect(mailboxKey(first)).toBe(mailboxKey(second));
        },
      ),
    );
  });

  test("every spelling of one mailbox matches its LIKE pattern", () => {
    const sqlite = new Database(":memory:");
    const like = sqlite.prepare<[string, string], { matches: number }>(
      "select lower(trim(?)) like ? escape '\\' as matches",
    );
    fc.assert(
      fc.property(
        mailbox.chain((box) => spellingOf(box)),
        (spelling) => {
          expect(like.get(spelling, mailboxLikePattern(mailboxKey(spelling)!))?.matches).toBe(1);
        },
      ),
    );
    expect(like.get("a_b@example.com", mailboxLikePattern("a_b@example.com"))?.matches).toBe(1);
    expect(like.get("axb@example.com", mailboxLikePattern("a_b@example.com"))?.matches).toBe(0);
    expect(like.get("a%b@example.com", mailboxLikePattern("ab@example.com"))?.matches).toBe(0);
  });

  test("different mailboxes never share a key", () => {
    fc.assert(
      fc.property(mailbox, mailbox, (first, second) => {
        const plain = (box: typeof first) =>
          box.domain === "gmail.com" ? box.words.join("") : box.words.join(".");
        fc.pre(plain(first) !== plain(second) || first.domain !== second.domain);
        const key = (box: typeof first) => mailboxKey(`${plain(box)}@${box.domain}`);
        expect(key(first)).not.toBe(key(second));
      }),
    );
  });
});
