import { parseWithZod } from "@conform-to/zod/v4";
import { describe, expect, test } from "vitest";
import {
  CHOOSE_AN_OPTION,
  keptSentence,
  LinkSchema,
  MISSING_FIELDS,
  MusingSchema,
  NEW_ITEM,
  UploadDetailsSchema,
} from "./item-validation";

function parse(schema: Parameters<typeof parseWithZod>[1]["schema"], fields: [string, string][]) {
  const formData = new FormData();
  for (const [name, value] of fields) formData.append(name, value);
  return parseWithZod(formData, { schema });
}

describe("what the app's sheets ask for (docs/decisions/0199-the-app-fills-what-it-knows.md)", () => {
  test("a link's title may be left to the app; a musing's and a photo's may not", () => {
    const link = parse(LinkSchema, [
      ["urls[0]", "example.com/a"],
      ["addComment", "on"],
      ["commentText", "For you"],
    ]);
    expect(link.status).toBe("success");
    expect(link.status === "success" && link.value).toMatchObject({ title: "" });
    expect(parse(MusingSchema, [["note", "Hi"]]).reply().error).toEqual({
      title: ["Title is required"],
    });
    expect(
      parse(UploadDetailsSchema, [
        ["addComment", "on"],
        ["commentText", "For you"],
      ]).reply().error,
    ).toEqual({ title: ["Title is required"] });
  });

  test("a new item starts with the comment box open", () => {
    expect(NEW_ITEM.addComment).toBe(true);
  });

  test("the ticked comment box, left empty beside a question, is no comment", () => {
    const asked = parse(LinkSchema, [
      ["urls[0]", "example.com/a"],
      ["addComment", "on"],
      ["commentText", ""],
      ["askQuestion", "on"],
      ["questionText", "Have you been?"],
    ]);
    expect(asked.status === "success" && asked.value).toMatchObject({
      addComment: false,
      commentText: null,
      askQuestion: true,
      questionText: "Have you been?",
    });
  });

  test("with no question, the ticked box needs its comment; with neither box, one is asked for", () => {
    expect(
      parse(LinkSchema, [
        ["urls[0]", "example.com/a"],
        ["addComment", "on"],
      ]).reply().error,
    ).toEqual({ commentText: [MISSING_FIELDS] });
    expect(parse(LinkSchema, [["urls[0]", "example.com/a"]]).reply().error).toEqual({
      addComment: [CHOOSE_AN_OPTION],
    });
  });
});

describe("what a refused form kept", () => {
  test("is named file by file", () => {
    expect(keptSentence(["IMG_2041.jpg"])).toBe("IMG_2041.jpg is kept");
    expect(keptSentence(["a.jpg", "b.jpg"])).toBe("a.jpg and b.jpg are kept");
    expect(keptSentence(["a.jpg", "b.jpg", "c.jpg"])).toBe("a.jpg, b.jpg and c.jpg are kept");
  });
});
