import { RuleError } from "~/platform/errors.server";

/**
 * HEIC photos (what iPhones save) decoded to raw pixels for sharp, whose
 * prebuilt libvips reads the HEIF container but has no HEVC decoder
 * (docs/decisions/0195-heic-photos.md). The decoder is libheif compiled to
 * WebAssembly (the npm package libheif-js, nothing fetched at install).
 *
 * - Loaded with the first HEIC, not at start (docs/performance.md, "bench:cold-start").
 * - A new WebAssembly instance for each photo, dropped afterwards: a
 *   WebAssembly memory only ever grows, so one kept instance would hold the
 *   largest photo's pixels for the life of the process. An instance costs
 *   about 70 ms; its memory is collected with it.
 * - The size is read from the file before anything is decoded; the caller
 *   refuses a photo over its limit with `dimensions` alone.
 */

/** The few parts of libheif's Embind interface used here. */
type HeifError = { code: unknown; message?: string };
type Handle = { code?: unknown };
type Channel = { width: number; height: number; stride: number; data: Uint8Array };
type Libheif = {
  ready?: Promise<unknown>;
  heif_error_code: { heif_error_Ok: unknown };
  heif_colorspace: { heif_colorspace_RGB: unknown };
  heif_chroma: { heif_chroma_interleaved_RGB: unknown; heif_chroma_interleaved_RGBA: unknown };
  heif_context_alloc(): unknown;
  heif_context_free(context: unknown): void;
  heif_context_read_from_memory(context: unknown, bytes: Uint8Array): HeifError;
  heif_js_context_get_primary_image_handle(context: unknown): Handle | null;
  heif_image_handle_get_width(handle: Handle): number;
  heif_image_handle_get_height(handle: Handle): number;
  heif_image_handle_has_alpha_channel(handle: Handle): number | boolean;
  heif_image_handle_release(handle: Handle): void;
  heif_js_decode_image2(
    handle: Handle,
    colorspace: unknown,
    chroma: unknown,
  ): { image: unknown; channels: Channel[]; code?: unknown } | null;
  heif_image_release(image: unknown): void;
};
type LibheifFactory = () => Libheif;

let factory: Promise<LibheifFactory> | undefined;

function loadFactory(): Promise<LibheifFactory> {
  factory ??= import(
    // @ts-expect-error: the package types its modules, not this bundle's path.
    "libheif-js/libheif-wasm/libheif-bundle.js"
  ).then((loaded: { default: LibheifFactory }) => loaded.default);
  return factory;
}

/** The sender's file is not a HEIF photo libheif can read; photo-processing answers it as any unreadable photo. */
export class HeicDecodeError extends RuleError {
  override name = "HeicDecodeError";
}

export type RawPhoto = {
  /** Interleaved 8-bit pixels, rows packed (no padding). */
  pixels: Buffer;
  width: number;
  height: number;
  channels: 3 | 4;
};

export type HeicPhoto = {
  width: number;
  height: number;
  /** Decodes the primary image; call at most once. */
  decode(): Promise<RawPhoto>;
  /** Frees the decoder; the pixels of `decode` stay readable only until then. */
  dispose(): void;
};

/**
 * Parses a HEIC file (no pixels decoded yet) and returns the size of its
 * primary image, with `decode` for the pixels. Always call `dispose`.
 */
export async function openHeic(bytes: Uint8Array): Promise<HeicPhoto> {
  const heif = (await loadFactory())();
  await heif.ready;
  const context = heif.heif_context_alloc();
  let handle: Handle | null = null;
  let image: unknown = null;
  const dispose = () => {
    if (image) heif.heif_image_release(image);
    if (handle) heif.heif_image_handle_release(handle);
    heif.heif_context_free(context);
    image = null;
    handle = null;
  };
  try {
    const read = heif.heif_context_read_from_memory(context, bytes);
    if (read.code !== heif.heif_error_code.heif_error_Ok) {
      throw new HeicDecodeError(`Not a readable HEIF file: ${read.message ?? "unknown error"}`);
    }
    const primary = heif.heif_js_context_get_primary_image_handle(context);
    if (!primary || primary.code) throw new HeicDecodeError("The HEIF file has no primary image");
    handle = primary;
  } catch (error) {
    dispose();
    throw error;
  }
  const width = heif.heif_image_handle_get_width(handle);
  const height = heif.heif_image_handle_get_height(handle);
  const channels: 3 | 4 = heif.heif_image_handle_has_alpha_channel(handle) ? 4 : 3;
  return {
    width,
    height,
    async decode() {
      if (!handle) throw new HeicDecodeError("The HEIF decoder was disposed");
      const decoded = await heif.heif_js_decode_image2(
        handle,
        heif.heif_colorspace.heif_colorspace_RGB,
        channels === 4
          ? heif.heif_chroma.heif_chroma_interleaved_RGBA
          : heif.heif_chroma.heif_chroma_interleaved_RGB,
      );
      if (!decoded || decoded.code || !decoded.image) {
        throw new HeicDecodeError("The HEIF image could not be decoded");
      }
      image = decoded.image;
      const plane = decoded.channels[0];
      if (!plane || plane.width !== width || plane.height !== height) {
        throw new HeicDecodeError("The HEIF image decoded to an unexpected size");
      }
      const row = width * channels;
      // A view of the decoder's memory when rows are packed; a copy otherwise.
      let pixels: Buffer;
      if (plane.stride === row) {
        pixels = Buffer.from(plane.data.buffer, plane.data.byteOffset, row * height);
      } else {
        pixels = Buffer.alloc(row * height);
        for (let y = 0; y < height; y++) {
          pixels.set(plane.data.subarray(y * plane.stride, y * plane.stride + row), y * row);
        }
      }
      return { pixels, width, height, channels };
    },
    dispose,
  };
}
