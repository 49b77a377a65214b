import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import { heicInOnePiece, heicOfSize } from "#tests/support/heic-photos";
import {
  HEIC_DECODE_BYTES_PER_PIXEL,
  HeicDecodeError,
  heicDecodeBytes,
  heicShrinkFor,
  openHeic,
} from "./heic-decoding.server";

const fixture = fs.readFileSync(path.resolve("tests/fixtures/photo-with-gps.heic"));
const made = fs.mkdtempSync(path.join(os.tmpdir(), "heic-decoding-"));
afterAll(() => fs.rmSync(made, { recursive: true, force: true }));

/** The picture as libheif decodes it whole through its own binding: the reference. */
async function wholeDecode(bytes: Uint8Array) {
  // @ts-expect-error: the package types its modules, not this bundle's path.
  const { default: factory } = await import("libheif-js/libheif-wasm/libheif-bundle.js");
  const heif = factory();
  await heif.ready;
  const context = heif.heif_context_alloc();
  heif.heif_context_read_from_memory(context, bytes);
  const handle = heif.heif_js_context_get_primary_image_handle(context);
  const decoded = heif.heif_js_decode_image2(
    handle,
    heif.heif_colorspace.heif_colorspace_RGB,
    heif.heif_chroma.heif_chroma_interleaved_RGB,
  );
  const plane = decoded.channels[0] as {
    width: number;
    height: number;
    stride: number;
    data: Uint8Array;
  };
  return plane;
}

/** Each pixel the rounded mean of its `shrink` × `shrink` block (those at the edges smaller). */
function boxShrunk(
  plane: { width: number; height: number; stride: number; data: Uint8Array },
  shrink: number,
) {
  const width = Math.ceil(plane.width / shrink);
  const height = Math.ceil(plane.height / shrink);
  const out = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      for (let c = 0; c < 3; c++) {
        let sum = 0;
        let count = 0;
        for (let sy = y * shrink; sy < Math.min(plane.height, (y + 1) * shrink); sy++) {
          for (let sx = x * shrink; sx < Math.min(plane.width, (x + 1) * shrink); sx++) {
            sum += plane.data[sy * plane.stride + sx * 3 + c]!;
            count++;
          }
        }
        out[(y * width + x) * 3 + c] = Math.round(sum / count);
      }
    }
  }
  return { width, height, pixels: out };
}

describe("openHeic", () => {
  test("reads the layout before decoding, then decodes the primary picture to packed RGB", async () => {
    const photo = await openHeic(fixture);
    try {
      expect(photo.layout).toEqual({
        width: 480,
        height: 360,
        channels: 3,
        // Stored in one piece (not a grid): decoded whole.
        tileWidth: 480,
        tileHeight: 360,
        transforms: [],
      });
      const raw = photo.decodeShrunk(1);
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

  test("a grid's turns are told, not applied: the layout is the stored picture's", async () => {
    const photo = await openHeic(heicOfSize(1000, 700, 1));
    try {
      expect(photo.layout).toMatchObject({
        width: 1000,
        height: 700,
        tileWidth: 480,
        tileHeight: 360,
        transforms: [{ turn: 90 }],
      });
    } finally {
      photo.dispose();
    }
  });

  test("shrunk tile by tile, each pixel is the mean of its block in the whole picture", async () => {
    // Grids whose tiles end inside a block (480 and 360 are not multiples of 7), and
    // pictures in one piece, added in strips of 240 rows.
    for (const [bytes, shrink] of [
      [heicOfSize(1000, 700), 3],
      [heicOfSize(1000, 700), 7],
      [heicOfSize(2000, 1100), 4],
      [fixture, 7],
      [fixture, 1],
      [heicInOnePiece(1000, 700, made), 7],
    ] as const) {
      const reference = boxShrunk(await wholeDecode(bytes), shrink);
      const photo = await openHeic(bytes);
      try {
        const raw = photo.decodeShrunk(shrink);
        expect({ width: raw.width, height: raw.height }).toEqual({
          width: reference.width,
          height: reference.height,
        });
        expect(raw.pixels.equals(reference.pixels)).toBe(true);
      } finally {
        photo.dispose();
      }
    }
  });
});

describe("what a decode holds", () => {
  const MB = 1024 * 1024;
  const iPhone48 = {
    width: 8064,
    height: 6048,
    channels: 3 as const,
    tileWidth: 512,
    tileHeight: 512,
    transforms: [],
  };

  test("a phone's 48 MP photo, in tiles, holds a tile and the shrunk picture: a few MB, not 200", () => {
    const shrink = heicShrinkFor(iPhone48, 1600);
    expect(shrink).toBe(5);
    expect(heicDecodeBytes(iPhone48, shrink, 0)).toBeLessThan(10 * MB);
  });

  test("a picture in one piece holds all of it, 7 bytes a pixel", () => {
    const whole = { ...iPhone48, tileWidth: 8064, tileHeight: 6048 };
    expect(heicDecodeBytes(whole, 5, 0)).toBeGreaterThan(8064 * 6048 * HEIC_DECODE_BYTES_PER_PIXEL);
  });
});
