import { describe, expect, test } from "vitest";
import { previewSizeInWords } from "./preview-size";

const MB = 1024 * 1024;

describe("the preview's size in plain words", () => {
  test("an e-mail of text and links", () => {
    expect(
      previewSizeInWords({
        htmlBytes: 12_800,
        totalBytes: 12_800,
        attachmentCount: 0,
        limitBytes: 25 * MB,
      }),
    ).toBe(
      "This e-mail is 12.5 KB (text and links only, no attachments), within the 25.0 MB this folder can send.",
    );
  });

  test("photos and files, and an e-mail over the folder's limit", () => {
    expect(
      previewSizeInWords({
        htmlBytes: 10_240,
        totalBytes: 12 * MB,
        attachmentCount: 1,
        limitBytes: 10 * MB,
      }),
    ).toBe(
      "This e-mail is 12.0 MB (the message 10.0 KB and 1 attached photo or file), more than the 10.0 MB this folder can send.",
    );
    expect(
      previewSizeInWords({
        htmlBytes: 10_240,
        totalBytes: 2 * MB,
        attachmentCount: 3,
        limitBytes: 10 * MB,
      }),
    ).toContain("3 attached photos and files");
  });
});
