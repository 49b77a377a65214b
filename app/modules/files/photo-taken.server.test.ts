import sharp, { type Exif } from "sharp";
import { describe, expect, test } from "vitest";
import { photoTakenOn } from "./photo-taken.server";

/** A JPEG as a camera writes it: its EXIF says when it was taken. */
async function exifOf(exif: Exif) {
  const jpeg = await sharp({ create: { width: 8, height: 8, channels: 3, background: "#c84" } })
    .jpeg()
    .withExif(exif)
    .toBuffer();
  return (await sharp(jpeg).metadata()).exif;
}

/**
 * A big-endian ("MM") TIFF block by hand, as some cameras write it: IFD0 with the Exif pointer
 * alone, then the Exif directory with DateTimeOriginal, its text after it.
 */
function bigEndianExif(taken: string) {
  const block = Buffer.alloc(8 + 18 + 18 + 20);
  block.write("MM", 0, "latin1");
  block.writeUInt16BE(42, 2);
  block.writeUInt32BE(8, 4);
  block.writeUInt16BE(1, 8);
  block.writeUInt16BE(0x8769, 10);
  block.writeUInt16BE(4, 12);
  block.writeUInt32BE(1, 14);
  block.writeUInt32BE(26, 18);
  block.writeUInt16BE(1, 26);
  block.writeUInt16BE(0x9003, 28);
  block.writeUInt16BE(2, 30);
  block.writeUInt32BE(20, 32);
  block.writeUInt32BE(44, 36);
  block.write(`${taken}\0`, 44, "latin1");
  return block;
}

describe("the day a photo was taken", () => {
  test("is its EXIF DateTimeOriginal's day, as the camera wrote it", async () => {
    const exif = await exifOf({ IFD2: { DateTimeOriginal: "2019:06:01 23:30:00" } });
    expect(photoTakenOn(exif)).toBe("2019-06-01");
    expect(photoTakenOn(bigEndianExif("2026:11:05 09:30:12"))).toBe("2026-11-05");
  });

  test("is none without EXIF, without the date, or with a date that is no day", async () => {
    expect(photoTakenOn(undefined)).toBeNull();
    expect(photoTakenOn(await exifOf({ IFD0: { Copyright: "Sam" } }))).toBeNull();
    expect(photoTakenOn(bigEndianExif("0000:00:00 00:00:00"))).toBeNull();
    expect(photoTakenOn(bigEndianExif("2026:02:30 10:00:00"))).toBeNull();
    expect(photoTakenOn(bigEndianExif("2026-11-05 09:30:1"))).toBeNull();
  });

  test("a block cut short or made up is none, never an error", () => {
    const whole = bigEndianExif("2026:11:05 09:30:12");
    for (let length = 0; length < whole.length - 10; length += 1) {
      expect(photoTakenOn(whole.subarray(0, length))).toBeNull();
    }
    const pointingAway = Buffer.from(whole);
    pointingAway.writeUInt32BE(0xffff_fff0, 36);
    expect(photoTakenOn(pointingAway)).toBeNull();
    expect(photoTakenOn(Buffer.from("Exif\0\0not a tiff at all"))).toBeNull();
  });
});
