import { describe, expect, test } from "vitest";
import { filesItNeeds, missingFileReason } from "./missing-file";

const key = (digit: string) => digit.repeat(32);

function item(
  type: "photo" | "file" | "video" | "link" | "musing",
  files: string[],
  missingFiles: string[] = [],
) {
  return {
    type,
    filePaths: files,
    fileNames: files.map((_, index) => `name-${index + 1}.jpg`),
    thumbnailPaths: type === "video" ? [key("f")] : files.map(() => ""),
    missingFiles,
  };
}

describe("the files an item cannot go without", () => {
  test("a photo's or a file's own, a video's clip and poster; none for a link or a musing", () => {
    expect(filesItNeeds(item("photo", [key("a"), key("b")]))).toEqual([key("a"), key("b")]);
    expect(filesItNeeds(item("file", [key("c")]))).toEqual([key("c")]);
    expect(filesItNeeds(item("video", [key("d")]))).toEqual([key("d"), key("f")]);
    expect(filesItNeeds(item("link", []))).toEqual([]);
    expect(filesItNeeds(item("musing", []))).toEqual([]);
  });
});

describe("why an item stayed behind", () => {
  test("in the kind's word for an item of one file", () => {
    expect(missingFileReason(item("photo", [key("a")], [key("a")]))).toBe(
      "The photo's file is missing: add it again",
    );
    expect(missingFileReason(item("file", [key("a")], [key("a")]))).toBe(
      "The file is missing: add it again",
    );
    expect(missingFileReason(item("video", [key("a")], [key("f")]))).toBe(
      "The video's file is missing: add it again",
    );
  });

  test("by the files' names for an item of several", () => {
    const three = [key("a"), key("b"), key("c")];
    expect(missingFileReason(item("photo", three, [key("b")]))).toBe(
      "The file of name-2.jpg is missing: add it again",
    );
    expect(missingFileReason(item("photo", three, [key("a"), key("c")]))).toBe(
      "The files of name-1.jpg and name-3.jpg are missing: add them again",
    );
  });

  test("none once the files it missed are no longer the item's", () => {
    expect(missingFileReason(item("photo", [key("a")]))).toBeNull();
    expect(missingFileReason(item("photo", [key("b")], [key("a")]))).toBeNull();
  });
});
