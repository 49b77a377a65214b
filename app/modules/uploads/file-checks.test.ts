import { describe, expect, test } from "vitest";
import { checkChosenFiles, isAllowedType, sizeBarLevel } from "./file-checks";

const MB = 1024 * 1024;
const jpeg = (name: string, size = 1000) => ({ name, type: "image/jpeg", size });

describe("checkChosenFiles", () => {
  test("a video is one clip of a video type (or a clip's name), up to 200 MB", () => {
    const clip = { name: "IMG_1.MOV", type: "video/quicktime", size: 150 * MB };
    expect(isAllowedType("video", { name: "b.webm", type: "", size: 1 })).toBe(true);
    expect(isAllowedType("video", { name: "c.jpg", type: "image/jpeg", size: 1 })).toBe(false);
    expect(isAllowedType("photo", clip)).toBe(false);
    const result = checkChosenFiles(
      "video",
      [],
      [
        clip,
        { name: "IMG_2.mp4", type: "video/mp4", size: 1 },
        { name: "long.mp4", type: "video/mp4", size: 201 * MB },
      ],
    );
    expect(result.kept).toEqual([clip]);
    expect(result.tooLarge).toEqual(["long.mp4 is too large. Maximum video size is 200MB."]);
    expect(result.limitMessage).toBe("One video per item.");
  });

  test("photos must be images; names of the others are listed", () => {
    const result = checkChosenFiles(
      "photo",
      [],
      [jpeg("beach.jpg"), { name: "notes.txt", type: "text/plain", size: 10 }],
    );
    expect(result.kept.map((file) => file.name)).toEqual(["beach.jpg"]);
    expect(result.invalidNames).toEqual(["notes.txt"]);
    expect(result.limitMessage).toBeNull();
  });

  test("files must be PDF or Word, by type or by name", () => {
    expect(isAllowedType("file", { name: "a.pdf", type: "application/pdf", size: 1 })).toBe(true);
    expect(isAllowedType("file", { name: "b.DOCX", type: "", size: 1 })).toBe(true);
    expect(isAllowedType("file", { name: "c.png", type: "image/png", size: 1 })).toBe(false);
    expect(isAllowedType("photo", { name: "d.pdf", type: "application/pdf", size: 1 })).toBe(false);
  });

  test("a HEIC photo is allowed by its type, or by its name when the browser gives none", () => {
    expect(isAllowedType("photo", { name: "IMG_1.HEIC", type: "image/heic", size: 1 })).toBe(true);
    expect(isAllowedType("photo", { name: "IMG_1.HEIC", type: "", size: 1 })).toBe(true);
    expect(
      isAllowedType("photo", { name: "IMG_1.heif", type: "application/octet-stream", size: 1 }),
    ).toBe(true);
    expect(isAllowedType("photo", { name: "notes.txt", type: "", size: 1 })).toBe(false);
    expect(isAllowedType("photo", { name: "a.heic", type: "application/pdf", size: 1 })).toBe(
      false,
    );
  });

  test("a photo beyond the 3rd gives Photo limit reached, counting those kept and stored", () => {
    const kept = [jpeg("1.jpg")];
    const result = checkChosenFiles("photo", kept, [jpeg("2.jpg"), jpeg("3.jpg")], 1);
    expect(result.kept.map((file) => file.name)).toEqual(["1.jpg", "2.jpg"]);
    expect(result.limitMessage).toBe("Photo limit reached");
    expect(kept).toHaveLength(1);
  });

  test("a file over 10 MB is named with the spec's message", () => {
    const result = checkChosenFiles(
      "photo",
      [],
      [jpeg("huge.jpg", 10 * MB + 1), jpeg("ok.jpg", 10 * MB)],
    );
    expect(result.tooLarge).toEqual(["huge.jpg is too large. Maximum photo size is 10MB."]);
    expect(result.kept.map((file) => file.name)).toEqual(["ok.jpg"]);
  });
});

describe("sizeBarLevel", () => {
  test("amber above 80 percent, red above 100 percent", () => {
    expect(sizeBarLevel(80, 100)).toBe("normal");
    expect(sizeBarLevel(81, 100)).toBe("warning");
    expect(sizeBarLevel(100, 100)).toBe("warning");
    expect(sizeBarLevel(101, 100)).toBe("over");
  });
});
