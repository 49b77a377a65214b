import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { createUser, uniqueEmail } from "#db/factories";
import { db } from "./db.server";
import { ONE_TIME_KEY_FIELD } from "./one-time-keys";
import {
  newOneTimeKey,
  ONE_TIME_KEY_KEPT_MS,
  onceForKey,
  oneTimeKeyOf,
  pruneOneTimeKeys,
  savedWithKey,
} from "./one-time-keys.server";

const formWith = (value: string) => {
  const formData = new FormData();
  formData.set(ONE_TIME_KEY_FIELD, value);
  return formData;
};

describe("a repeated submit is taken once", () => {
  test("the same key saves once and answers every repeat with where the first save led", () => {
    const userId = createUser(db, { email: uniqueEmail("once") }).id;
    const key = newOneTimeKey();
    let saves = 0;
    const save = () => `/folders/1#item-${++saves}`;
    expect(onceForKey(userId, key, save)).toEqual({
      location: "/folders/1#item-1",
      repeated: false,
    });
    expect(onceForKey(userId, key, save)).toEqual({
      location: "/folders/1#item-1",
      repeated: true,
    });
    expect(saves).toBe(1);
    // Another key, or another person's use of the same key, is a new save.
    expect(onceForKey(userId, newOneTimeKey(), save).repeated).toBe(false);
    const other = createUser(db, { email: uniqueEmail("other") }).id;
    expect(onceForKey(other, key, save)).toEqual({
      location: "/folders/1#item-3",
      repeated: false,
    });
  });

  test("where a key's first save led can be read without saving", () => {
    const userId = createUser(db, { email: uniqueEmail("read") }).id;
    const key = newOneTimeKey();
    expect(savedWithKey(userId, key)).toBeNull();
    onceForKey(userId, key, () => "/folders/4#item-9");
    expect(savedWithKey(userId, key)).toBe("/folders/4#item-9");
    expect(savedWithKey(createUser(db, { email: uniqueEmail("else") }).id, key)).toBeNull();
    expect(savedWithKey(userId, null)).toBeNull();
  });

  test("a save that fails records nothing, so the form may be sent again", () => {
    const userId = createUser(db, { email: uniqueEmail("fails") }).id;
    const key = newOneTimeKey();
    expect(() =>
      onceForKey(userId, key, () => {
        throw new Error("refused");
      }),
    ).toThrow("refused");
    expect(onceForKey(userId, key, () => "/folders/2")).toEqual({
      location: "/folders/2",
      repeated: false,
    });
  });

  test("a form without a key saves each time", () => {
    const userId = createUser(db, { email: uniqueEmail("keyless") }).id;
    let saves = 0;
    onceForKey(userId, null, () => `/x/${++saves}`);
    onceForKey(userId, null, () => `/x/${++saves}`);
    expect(saves).toBe(2);
  });

  test("only a key's own shape is read from a form: anything else is no key", () => {
    expect(oneTimeKeyOf(formWith("0f8fad5b-d9cb-469f-a165-70867728950e"))).toBe(
      "0f8fad5b-d9cb-469f-a165-70867728950e",
    );
    fc.assert(
      fc.property(fc.string({ maxLength: 80 }), (typed) => {
        const read = oneTimeKeyOf(formWith(typed));
        expect(read === null || read === typed).toBe(true);
        if (read !== null) expect(read).toMatch(/^[0-9a-f-]{36}$/);
      }),
    );
    expect(oneTimeKeyOf(new FormData())).toBeNull();
  });

  test("keys are forgotten after a day", () => {
    const userId = createUser(db, { email: uniqueEmail("prune") }).id;
    const key = newOneTimeKey();
    onceForKey(userId, key, () => "/folders/3");
    const later = new Date(Date.now() + ONE_TIME_KEY_KEPT_MS + 60_000);
    expect(pruneOneTimeKeys(later)).toBeGreaterThanOrEqual(1);
    expect(onceForKey(userId, key, () => "/folders/4").repeated).toBe(false);
  });
});
