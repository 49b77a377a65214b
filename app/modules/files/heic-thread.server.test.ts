import { monitorEventLoopDelay } from "node:perf_hooks";
import { describe, expect, test } from "vitest";
import { heicOfSize } from "#tests/support/heic-photos";
import { loadSharp } from "~/platform/sharp.server";
import { HeicDecodeError, heicShrinkFor, openHeic } from "./heic-decoding.server";
import { openHeicOnItsThread } from "./heic-thread.server";

/** HEIC photos decoded on a thread of their own: `npm run build` first (build/server/heic-worker.js). */

/** The picture as libheif decodes it whole, turned as its file says, through its own binding. */
async function shownByLibheif(bytes: Uint8Array) {
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
  const row = plane.width * 3;
  const pixels = Buffer.alloc(row * plane.height);
  for (let y = 0; y < plane.height; y++) {
    pixels.set(plane.data.subarray(y * plane.stride, y * plane.stride + row), y * row);
  }
  return { width: plane.width, height: plane.height, pixels };
}

/** The longest the event loop waited, in ms, while `work` ran. */
async function longestStall(work: () => unknown) {
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  await new Promise((resolve) => setTimeout(resolve, 50));
  await work();
  await new Promise((resolve) => setTimeout(resolve, 50));
  delay.disable();
  return delay.max / 1e6;
}

describe("a HEIC photo on its own thread", () => {
  test("is shown as its file says: turned a quarter, a half and three quarters", async () => {
    for (const quarterTurns of [1, 2, 3]) {
      const bytes = heicOfSize(1000, 700, quarterTurns);
      const photo = await openHeicOnItsThread(bytes);
      const shown = await photo.decode(1);
      const reference = await shownByLibheif(bytes);
      expect({ width: shown.width, height: shown.height }).toEqual({
        width: reference.width,
        height: reference.height,
      });
      expect(shown.pixels.equals(reference.pixels)).toBe(true);
    }
  });

  test("a file libheif cannot read is refused, and its thread ends", async () => {
    await expect(openHeicOnItsThread(Buffer.from("ftypheic, and then nothing"))).rejects.toThrow(
      HeicDecodeError,
    );
  });

  test("while a 25 MP photo decodes, the server's thread is free", async () => {
    await loadSharp();
    const bytes = heicOfSize(5760, 4320);
    // The same photo decoded on this thread: how long the loop would wait (the old way).
    const onThisThread = await longestStall(async () => {
      const photo = await openHeic(bytes);
      try {
        photo.decodeShrunk(heicShrinkFor(photo.layout, 1600));
      } finally {
        photo.dispose();
      }
    });
    const onItsThread = await longestStall(async () => {
      const photo = await openHeicOnItsThread(bytes);
      const raw = await photo.decode(heicShrinkFor(photo.layout, 1600));
      expect(raw).toMatchObject({ width: 1920, height: 1440 });
    });
    expect(onThisThread).toBeGreaterThan(200);
    expect(onItsThread).toBeLessThan(onThisThread / 3);
  });
});
