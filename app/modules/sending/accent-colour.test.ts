import { describe, expect, test } from "vitest";
import { accentContrast, chosenAccent, contrastWithWhite, pickerColour } from "./accent-colour";

const form = (fields: Record<string, string>) => {
  const data = new FormData();
  for (const [key, value] of Object.entries(fields)) data.append(key, value);
  return data;
};

describe("the accent colour's contrast", () => {
  test("is WCAG's ratio against white", () => {
    expect(contrastWithWhite("#ffffff")).toBeCloseTo(1);
    expect(contrastWithWhite("#000000")).toBeCloseTo(21);
    expect(contrastWithWhite("#767676")).toBeCloseTo(4.54, 2);
  });

  test("is told in words, for ours when the field is empty, rounded down", () => {
    expect(accentContrast("")).toMatchObject({ colour: "#30503b", ours: true, enough: true });
    expect(accentContrast("#FFFF00")).toEqual({
      colour: "#ffff00",
      ours: false,
      ratio: "1.0:1",
      enough: false,
    });
    expect(accentContrast("#777777")).toMatchObject({ ratio: "4.4:1", enough: false });
    expect(accentContrast("#767676")).toMatchObject({ ratio: "4.5:1", enough: true });
    expect(accentContrast("red")).toBeNull();
  });
});

describe("choosing between the picker and the hex field", () => {
  test("a moved picker counts only when the hex field is as shown", () => {
    const picked = chosenAccent(
      form({ accentColor: "#1e3a8a", accentShown: "#1e3a8a", accentPicker: "#7c2d12" }),
    );
    expect(picked.get("accentColor")).toBe("#7c2d12");
    const typed = chosenAccent(
      form({ accentColor: "#14532d", accentShown: "#1e3a8a", accentPicker: "#7c2d12" }),
    );
    expect(typed.get("accentColor")).toBe("#14532d");
    const untouched = chosenAccent(
      form({ accentColor: "", accentShown: "", accentPicker: pickerColour("") }),
    );
    expect(untouched.get("accentColor")).toBe("");
    const cleared = chosenAccent(
      form({ accentColor: "", accentShown: "#1e3a8a", accentPicker: "#1e3a8a" }),
    );
    expect(cleared.get("accentColor")).toBe("");
  });
});
