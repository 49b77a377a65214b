import { RuleError } from "~/platform/errors.server";

/**
 * HEIC photos (what iPhones save) decoded to raw pixels for sharp, whose
 * prebuilt libvips reads the HEIF container but has no HEVC decoder
 * (docs/decisions/0195-heic-photos.md). The decoder is libheif compiled to
 * WebAssembly (the npm package libheif-js, nothing fetched at install).
 *
 * This module runs on the HEIC thread (heic-worker.ts, started for each
 * photo by heic-thread.server.ts), never on the server's: a decode keeps its
 * thread busy for seconds (docs/decisions/0238-photo-decodes-in-the-budget.md).
 *
 * - The layout (size, tiles) is read before anything is decoded; the server
 *   judges it and charges the memory budget before asking for the pixels.
 * - The picture is decoded a tile at a time (phones store 512 × 512 tiles)
 *   and each tile is shrunk at once by a whole factor into a band of a few
 *   rows, so a 48-megapixel photo holds one tile and the shrunk picture, not
 *   the 200 MB of the whole one. A picture stored in one piece is one tile.
 * - Tiles are decoded as stored; the picture's turns, mirrorings and crops
 *   (the `irot`, `imir` and `clap` properties, in the file's order) are
 *   returned with the shrunk pixels for sharp to apply
 *   (heic-thread.server.ts): libheif's own tiling reports the first tile's
 *   offset of a turned picture in a way its header does not define.
 * - Through libheif's C functions (its tile API has no JavaScript binding),
 *   on the instance's memory.
 */

/** The sender's file is not a HEIF photo libheif can read; photo-processing answers it as any unreadable photo. */
export class HeicDecodeError extends RuleError {
  override name = "HeicDecodeError";
}

/** One step of how a stored picture is shown, in the order the file gives them. */
export type HeicTransform =
  | { turn: number }
  | { mirror: "left-right" | "top-bottom" }
  | { crop: { left: number; top: number; right: number; bottom: number } };

/** What the file says of its primary picture, as stored (before its transforms). */
export type HeicLayout = {
  width: number;
  height: number;
  channels: 3 | 4;
  /** The piece decoded at a time: a tile, or the whole picture when it is stored in one piece. */
  tileWidth: number;
  tileHeight: number;
  transforms: HeicTransform[];
};

export type RawPhoto = {
  /** Interleaved 8-bit pixels, rows packed (no padding). */
  pixels: Buffer;
  width: number;
  height: number;
  channels: 3 | 4;
};

/**
 * Decoding a piece grows the instance by about 7 bytes a pixel of it: the
 * coded picture, libde265's working planes, and its RGB (measured: a 12 MP
 * photo in one piece grows the instance from 16 MB to 98 MB, 6.7 bytes a pixel).
 */
export const HEIC_DECODE_BYTES_PER_PIXEL = 7;

/** The whole factor a picture is shrunk by while it is decoded: it stays at least `edge` on its long side. */
export function heicShrinkFor(layout: Pick<HeicLayout, "width" | "height">, edge: number) {
  return Math.max(1, Math.floor(Math.max(layout.width, layout.height) / edge));
}

/** The size of the shrunk picture. */
export function shrunkSize(layout: Pick<HeicLayout, "width" | "height">, shrink: number) {
  return { width: Math.ceil(layout.width / shrink), height: Math.ceil(layout.height / shrink) };
}

/**
 * What a decode holds on the HEIC thread besides the instance: the file's
 * bytes (copied into the instance), one piece being decoded, the band of
 * sums (a few rows of the shrunk picture, four bytes a value) and the shrunk
 * picture itself.
 */
export function heicDecodeBytes(layout: HeicLayout, shrink: number, fileBytes: number) {
  const out = shrunkSize(layout, shrink);
  return (
    fileBytes +
    layout.tileWidth * layout.tileHeight * HEIC_DECODE_BYTES_PER_PIXEL +
    (shrink > 1 ? bandRowsFor(layout, shrink) * out.width * layout.channels * 4 : 0) +
    out.width * out.height * layout.channels
  );
}

/**
 * Rows of a piece added at a time when the pieces are as wide as the
 * picture (one column of tiles, or one piece): each strip's shrunk rows are
 * written out before the next, so the band stays a few rows high.
 */
const STRIP_ROWS = 240;

/** The image rows added between two writes of finished rows: a row of tiles, or a strip. */
function addedRowsFor(layout: HeicLayout) {
  return layout.tileWidth >= layout.width
    ? Math.min(STRIP_ROWS, layout.tileHeight)
    : layout.tileHeight;
}

/** The shrunk rows the band of sums holds: those the added rows reach, and one begun before them. */
function bandRowsFor(layout: HeicLayout, shrink: number) {
  return Math.ceil(addedRowsFor(layout) / shrink) + 2;
}

/** The few parts of the Emscripten module used here: its memory and libheif's C functions. */
type Libheif = {
  ready?: Promise<unknown>;
  HEAPU8: Uint8Array;
  HEAP32: Int32Array;
  HEAPU32: Uint32Array;
  _malloc(bytes: number): number;
  _free(pointer: number): void;
  _heif_context_alloc(): number;
  _heif_context_free(context: number): void;
  _heif_context_read_from_memory(
    error: number,
    context: number,
    data: number,
    size: number,
    options: number,
  ): void;
  _heif_context_get_primary_image_handle(error: number, context: number, handle: number): void;
  _heif_image_handle_release(handle: number): void;
  _heif_image_handle_has_alpha_channel(handle: number): number;
  _heif_image_handle_get_image_tiling(
    error: number,
    handle: number,
    processTransformations: number,
    tiling: number,
  ): void;
  _heif_image_handle_decode_image_tile(
    error: number,
    handle: number,
    image: number,
    colorspace: number,
    chroma: number,
    options: number,
    tileX: number,
    tileY: number,
  ): void;
  _heif_image_get_width(image: number, channel: number): number;
  _heif_image_get_height(image: number, channel: number): number;
  _heif_image_get_plane_readonly2(image: number, channel: number, stride: number): number;
  _heif_image_release(image: number): void;
  _heif_image_handle_get_item_id(handle: number): number;
  _heif_decoding_options_alloc(): number;
  _heif_decoding_options_free(options: number): void;
  _heif_item_get_transformation_properties(
    context: number,
    item: number,
    list: number,
    count: number,
  ): number;
  _heif_item_get_property_type(context: number, item: number, property: number): number;
  _heif_item_get_property_transform_rotation_ccw(
    context: number,
    item: number,
    property: number,
  ): number;
  _heif_item_get_property_transform_mirror(context: number, item: number, property: number): number;
  _heif_item_get_property_transform_crop_borders(
    context: number,
    item: number,
    property: number,
    imageWidth: number,
    imageHeight: number,
    left: number,
    top: number,
    right: number,
    bottom: number,
  ): void;
};

// libheif's enums (heif_image.h): RGB, interleaved 8-bit RGB or RGBA, the interleaved plane.
const COLORSPACE_RGB = 1;
const CHROMA_INTERLEAVED_RGB = 10;
const CHROMA_INTERLEAVED_RGBA = 11;
const CHANNEL_INTERLEAVED = 10;
const fourcc = (code: string) =>
  code.split("").reduce((value, char) => value * 256 + char.charCodeAt(0), 0);
const PROPERTY_ROTATION = fourcc("irot");
const PROPERTY_MIRROR = fourcc("imir");
const PROPERTY_CROP = fourcc("clap");
/** heif_decoding_options: `version` (a byte), then `ignore_transformations` (a byte). */
const IGNORE_TRANSFORMATIONS_AT = 1;
/** More than a file has: one of each kind, and some over. */
const MAX_TRANSFORMS = 8;

let factory: Promise<() => Libheif> | undefined;

function loadFactory() {
  factory ??= import(
    // @ts-expect-error: the package types its modules, not this bundle's path.
    "libheif-js/libheif-wasm/libheif-bundle.js"
  ).then((loaded: { default: () => Libheif }) => loaded.default);
  return factory;
}

export type HeicPhoto = {
  layout: HeicLayout;
  /**
   * The primary picture as stored, shrunk by `shrink` (a whole factor, each
   * pixel the mean of its block); its `layout.transforms` are still to apply. Call at most once.
   */
  decodeShrunk(shrink: number): RawPhoto;
  /** Frees the decoder. */
  dispose(): void;
};

/**
 * Parses a HEIC file (no pixels decoded yet) and returns the layout of its
 * primary picture, with `decodeShrunk` for the pixels. Always call `dispose`.
 * A new instance each time: its memory only ever grows, and goes with it.
 */
export async function openHeic(bytes: Uint8Array): Promise<HeicPhoto> {
  const heif = (await loadFactory())();
  await heif.ready;
  const u32 = (pointer: number) => heif.HEAPU32[pointer >>> 2]!;
  // Room for libheif's answers: an error (12 bytes), a handle, an image, a stride, the
  // tiling (72 bytes), four crop borders, the list of transforms.
  const scratch = heif._malloc(256);
  const [errorAt, handleAt, imageAt, strideAt, tilingAt, bordersAt, transformsAt] = [
    0, 16, 20, 24, 32, 112, 128,
  ].map((offset) => scratch + offset) as [number, number, number, number, number, number, number];
  const check = (what: string) => {
    if (heif.HEAP32[errorAt >>> 2] === 0) return;
    throw new HeicDecodeError(`${what}: ${cString(heif, u32(errorAt + 8))}`);
  };
  const context = heif._heif_context_alloc();
  const data = heif._malloc(bytes.length);
  let handle = 0;
  const dispose = () => {
    if (handle) heif._heif_image_handle_release(handle);
    heif._heif_context_free(context);
    heif._free(data);
    heif._free(scratch);
    handle = 0;
  };
  let layout: HeicLayout;
  let grid: { columns: number; rows: number };
  try {
    heif.HEAPU8.set(bytes, data);
    heif._heif_context_read_from_memory(errorAt, context, data, bytes.length, 0);
    check("Not a readable HEIF file");
    heif._heif_context_get_primary_image_handle(errorAt, context, handleAt);
    check("The HEIF file has no primary image");
    handle = u32(handleAt);
    heif._heif_image_handle_get_image_tiling(errorAt, handle, 0, tilingAt);
    check("The HEIF file's tiles could not be read");
    // heif_image_tiling: version, columns, rows, tile width and height, image width and height.
    const field = (index: number) => u32(tilingAt + 4 + 4 * index);
    grid = { columns: field(0), rows: field(1) };
    layout = {
      width: field(4),
      height: field(5),
      channels: heif._heif_image_handle_has_alpha_channel(handle) ? 4 : 3,
      tileWidth: field(2),
      tileHeight: field(3),
      transforms: [],
    };
    layout.transforms = transformsOf(heif, context, handle, layout, {
      list: transformsAt,
      borders: bordersAt,
    });
    if (!(layout.width > 0 && layout.height > 0 && layout.tileWidth > 0 && layout.tileHeight > 0)) {
      throw new HeicDecodeError("The HEIF file gives its picture no size");
    }
  } catch (error) {
    dispose();
    throw error;
  }
  const { columns, rows } = grid;
  return {
    layout,
    decodeShrunk(shrink) {
      if (!handle) throw new HeicDecodeError("The HEIF decoder was disposed");
      const options = heif._heif_decoding_options_alloc();
      heif.HEAPU8[options + IGNORE_TRANSFORMATIONS_AT] = 1;
      let shrinker = null as Shrinker | null;
      try {
        for (let tileY = 0; tileY < rows; tileY++) {
          for (let tileX = 0; tileX < columns; tileX++) {
            heif._heif_image_handle_decode_image_tile(
              errorAt,
              handle,
              imageAt,
              COLORSPACE_RGB,
              layout.channels === 4 ? CHROMA_INTERLEAVED_RGBA : CHROMA_INTERLEAVED_RGB,
              options,
              tileX,
              tileY,
            );
            check("The HEIF image could not be decoded");
            const image = u32(imageAt);
            try {
              const width = heif._heif_image_get_width(image, CHANNEL_INTERLEAVED);
              const height = heif._heif_image_get_height(image, CHANNEL_INTERLEAVED);
              const plane = heif._heif_image_get_plane_readonly2(
                image,
                CHANNEL_INTERLEAVED,
                strideAt,
              );
              if (!plane || width <= 0 || height <= 0) {
                throw new HeicDecodeError("The HEIF image decoded to nothing");
              }
              // A picture in one piece is as large as its piece, whatever its header said.
              shrinker ??= new Shrinker(
                columns * rows === 1
                  ? { ...layout, width, height, tileWidth: width, tileHeight: height }
                  : layout,
                shrink,
              );
              const stride = u32(strideAt);
              const at = { x: tileX * layout.tileWidth, y: tileY * layout.tileHeight };
              if (columns > 1) shrinker.add(heif.HEAPU8, plane, stride, width, height, at);
              else {
                const strip = addedRowsFor({ ...layout, tileWidth: width, tileHeight: height });
                for (let top = 0; top < height; top += strip) {
                  const rows = Math.min(strip, height - top);
                  shrinker.add(heif.HEAPU8, plane + top * stride, stride, width, rows, {
                    x: at.x,
                    y: at.y + top,
                  });
                  shrinker.rowOfTilesDone(at.y + top + rows);
                }
              }
            } finally {
              heif._heif_image_release(image);
            }
          }
          shrinker?.rowOfTilesDone((tileY + 1) * layout.tileHeight);
        }
      } finally {
        heif._heif_decoding_options_free(options);
      }
      if (!shrinker) throw new HeicDecodeError("The HEIF image has no tiles");
      return shrinker.result();
    },
    dispose,
  };
}

/**
 * The picture's transforms in the file's order, each crop in pixels of the
 * picture as it is at that step.
 */
function transformsOf(
  heif: Libheif,
  context: number,
  handle: number,
  stored: { width: number; height: number },
  room: { list: number; borders: number },
): HeicTransform[] {
  const item = heif._heif_image_handle_get_item_id(handle);
  const count = heif._heif_item_get_transformation_properties(
    context,
    item,
    room.list,
    MAX_TRANSFORMS,
  );
  const transforms: HeicTransform[] = [];
  let { width, height } = stored;
  for (let i = 0; i < Math.min(count, MAX_TRANSFORMS); i++) {
    const property = heif.HEAPU32[(room.list >>> 2) + i]!;
    const type = heif._heif_item_get_property_type(context, item, property);
    if (type === PROPERTY_ROTATION) {
      const turn = heif._heif_item_get_property_transform_rotation_ccw(context, item, property);
      if (turn % 180 !== 0) [width, height] = [height, width];
      transforms.push({ turn });
    } else if (type === PROPERTY_MIRROR) {
      // heif_transform_mirror_direction: 0 about the vertical axis (left-right), 1 the horizontal.
      const axis = heif._heif_item_get_property_transform_mirror(context, item, property);
      transforms.push({ mirror: axis === 0 ? "left-right" : "top-bottom" });
    } else if (type === PROPERTY_CROP) {
      const at = room.borders;
      heif._heif_item_get_property_transform_crop_borders(
        context,
        item,
        property,
        width,
        height,
        at,
        at + 4,
        at + 8,
        at + 12,
      );
      const [left, top, right, bottom] = [0, 1, 2, 3].map((n) => heif.HEAP32[(at >>> 2) + n]!) as [
        number,
        number,
        number,
        number,
      ];
      width -= left + right;
      height -= top + bottom;
      transforms.push({ crop: { left, top, right, bottom } });
    }
  }
  return transforms;
}

/** A NUL-terminated string in the instance's memory. */
function cString(heif: Libheif, pointer: number) {
  if (!pointer) return "unknown error";
  const end = heif.HEAPU8.indexOf(0, pointer);
  return new TextDecoder().decode(heif.HEAPU8.subarray(pointer, end < 0 ? pointer : end));
}

/**
 * Shrinks a picture by a whole factor as its tiles arrive, row of tiles by
 * row of tiles: each shrunk pixel is the mean of its block (a box filter,
 * as libvips' own shrink), summed in a band of the rows the current row of
 * tiles reaches, and written out once no later tile can reach them.
 */
export class Shrinker {
  readonly #width: number;
  readonly #height: number;
  readonly #channels: number;
  readonly #shrink: number;
  readonly #out: Buffer;
  readonly #outWidth: number;
  readonly #outHeight: number;
  /** Sums of the rows from #bandStart on; none when shrink is 1 (tiles are copied). */
  #band: Uint32Array;
  #bandStart = 0;

  constructor(layout: HeicLayout, shrink: number) {
    this.#width = layout.width;
    this.#height = layout.height;
    this.#channels = layout.channels;
    this.#shrink = shrink;
    const out = shrunkSize(layout, shrink);
    this.#outWidth = out.width;
    this.#outHeight = out.height;
    this.#out = Buffer.alloc(out.width * out.height * layout.channels);
    const bandRows = shrink > 1 ? bandRowsFor(layout, shrink) : 0;
    this.#band = new Uint32Array(bandRows * out.width * layout.channels);
  }

  /** A decoded tile: `width` × `height` pixels at `stride` bytes a row from `plane`, its top left at `at` (may be off the picture). */
  add(
    heap: Uint8Array,
    plane: number,
    stride: number,
    width: number,
    height: number,
    at: { x: number; y: number },
  ) {
    const channels = this.#channels;
    const shrink = this.#shrink;
    const fromX = Math.max(0, -at.x);
    const toX = Math.min(width, this.#width - at.x);
    const fromY = Math.max(0, -at.y);
    const toY = Math.min(height, this.#height - at.y);
    if (fromX >= toX || fromY >= toY) return;
    const rowBytes = this.#outWidth * channels;
    if (shrink === 1) {
      for (let y = fromY; y < toY; y++) {
        const source = plane + y * stride + fromX * channels;
        this.#out.set(
          heap.subarray(source, source + (toX - fromX) * channels),
          (at.y + y) * rowBytes + (at.x + fromX) * channels,
        );
      }
      return;
    }
    // Where each of the tile's columns goes in a row of sums.
    const column = new Int32Array(toX - fromX);
    for (let x = fromX; x < toX; x++)
      column[x - fromX] = Math.floor((at.x + x) / shrink) * channels;
    const band = this.#band;
    for (let y = fromY; y < toY; y++) {
      const row = (Math.floor((at.y + y) / shrink) - this.#bandStart) * rowBytes;
      let source = plane + y * stride + fromX * channels;
      for (let i = 0; i < column.length; i++) {
        const target = row + column[i]!;
        for (let c = 0; c < channels; c++) band[target + c]! += heap[source + c]!;
        source += channels;
      }
    }
  }

  /** Every tile above `imageRow` has been added: the shrunk rows wholly above it are written out. */
  rowOfTilesDone(imageRow: number) {
    if (this.#shrink === 1) return;
    const complete =
      imageRow >= this.#height ? this.#outHeight : Math.floor(imageRow / this.#shrink);
    const rowBytes = this.#outWidth * this.#channels;
    const shrink = this.#shrink;
    for (let outY = this.#bandStart; outY < complete; outY++) {
      const rowsInBlock = Math.min(shrink, this.#height - outY * shrink);
      const sums = (outY - this.#bandStart) * rowBytes;
      for (let outX = 0; outX < this.#outWidth; outX++) {
        const count = rowsInBlock * Math.min(shrink, this.#width - outX * shrink);
        const at = outX * this.#channels;
        for (let c = 0; c < this.#channels; c++) {
          this.#out[outY * rowBytes + at + c] = Math.round(this.#band[sums + at + c]! / count);
        }
      }
    }
    // The rows not yet complete move to the top of the band, which is cleared below them.
    const done = Math.max(0, complete - this.#bandStart);
    if (done > 0) {
      this.#band.copyWithin(0, done * rowBytes);
      this.#band.fill(0, Math.max(0, this.#band.length - done * rowBytes));
      this.#bandStart = complete;
    }
  }

  result(): RawPhoto {
    return {
      pixels: this.#out,
      width: this.#outWidth,
      height: this.#outHeight,
      channels: this.#channels as 3 | 4,
    };
  }
}
