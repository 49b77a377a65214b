import fs from "node:fs";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { HeicDecodeError, openHeic } from "./heic-decoding.server";
import { HEIC_DECODE_BYTES_PER_PIXEL, heicReservationBytes } from "./photo-processing.server";

const heic = fs.readFileSync(path.resolve("tests/fixtures/photo-with-gps.heic"));

describe("openHeic", () => {
  test("reads the size before decoding, then decodes the primary image to packed RGB", async () => {
    const photo = await openHeic(heic);
    try {
      expect({ width: photo.width, height: photo.height }).toEqual({ width: 480, height: 360 });
      const raw = await photo.decode();
      expect(raw).toMatchObject({ width: 480, height: 360, channels: 3 });
      expect(raw.pixels.length).toBe(480 * 360 * 3);
      // The fixture's left edge is orange (#e8633a, as HEVC keeps it: roughly).
      const [r, g, b] = raw.pixels.subarray(0, 3);
      expect(r).toBeGreaterThan(180);
      expect(b).toBeLessThan(110);
      expect(g).toBeLessThan(r!);
    } finally {
      photo.dispose();
    }
  });

  test("a file that is not HEIF is refused before any decode", async () => {
    await expect(openHeic(Buffer.from("not a photo at all"))).rejects.toBeInstanceOf(
      HeicDecodeError,
    );
  });
});

describe("heicReservationBytes", () => {
  test("charges the estimate, but at most half the budget", () => {
    const MiB = 1024 * 1024;
    expect(heicReservationBytes(1_000_000, 76 * MiB)).toBe(HEIC_DECODE_BYTES_PER_PIXEL * 1_000_000);
    expect(heicReservationBytes(24_000_000, 76 * MiB)).toBe(38 * MiB);
  });
});
