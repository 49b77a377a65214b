import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

/**
 * HEIC photos of any size for the tests of photo decoding, boxes as ISO/IEC
 * 23008-12 (HEIF) and 14496-12 lay them out:
 *
 * - `heicOfSize`: a grid, as phones store their photos (iPhones in tiles of
 *   512 × 512), whose every tile is the committed fixture's 480 × 360 picture
 *   (tests/fixtures/README.md). The tiles are items of their own that all
 *   point at the same bytes, so a 25-megapixel photo that libheif decodes in
 *   full is about 6 KB: what an attacker sends.
 * - `heicInOnePiece`: one picture of the whole size, coded by ffmpeg's
 *   libx265 (the video tests' ffmpeg), as desktop tools store a HEIC.
 */

const fixture = fs.readFileSync(
  path.resolve(import.meta.dirname, "../fixtures/photo-with-gps.heic"),
);
const TILE_WIDTH = 480;
const TILE_HEIGHT = 360;

/** The box of `type` among the boxes in `within` (children of meta start after its 4-byte version). */
function findBox(within: Buffer, type: string): Buffer {
  for (let offset = 0; offset + 8 <= within.length; ) {
    const size = within.readUInt32BE(offset);
    if (within.toString("latin1", offset + 4, offset + 8) === type) {
      return within.subarray(offset, offset + size);
    }
    offset += size;
  }
  throw new Error(`The fixture has no ${type} box`);
}

const meta = findBox(fixture, "meta");
const ipco = findBox(findBox(meta.subarray(12), "iprp").subarray(8), "ipco");
/** The picture's decoder configuration, shared by every tile. */
const hvcC = findBox(ipco.subarray(8), "hvcC");
/**
 * The picture's coded bytes. The fixture's iloc (4-byte offsets, lengths and
 * base offsets) gives item 1 a base offset and one extent: 421 and 1,372 bytes.
 */
const iloc = findBox(meta.subarray(12), "iloc");
const tileOffset = iloc.readUInt32BE(20) + iloc.readUInt32BE(26);
const tileLength = iloc.readUInt32BE(30);
const tileData = fixture.subarray(tileOffset, tileOffset + tileLength);

function box(type: string, ...parts: Buffer[]) {
  const body = Buffer.concat(parts);
  const header = Buffer.alloc(8);
  header.writeUInt32BE(8 + body.length, 0);
  header.write(type, 4, "latin1");
  return Buffer.concat([header, body]);
}

function fullBox(type: string, version: number, flags: number, ...parts: Buffer[]) {
  const head = Buffer.alloc(4);
  head.writeUInt32BE(((version & 0xff) << 24) | (flags & 0xffffff), 0);
  return box(type, head, ...parts);
}

function u16(...values: number[]) {
  const out = Buffer.alloc(2 * values.length);
  for (const [i, value] of values.entries()) out.writeUInt16BE(value, 2 * i);
  return out;
}

function u32(...values: number[]) {
  const out = Buffer.alloc(4 * values.length);
  for (const [i, value] of values.entries()) out.writeUInt32BE(value, 4 * i);
  return out;
}

function ispe(width: number, height: number) {
  return fullBox("ispe", 0, 0, u32(width, height));
}

function infe(id: number, type: string, hidden: boolean) {
  return fullBox("infe", 2, hidden ? 1 : 0, u16(id, 0), Buffer.from(`${type}\0`, "latin1"));
}

/**
 * A HEIC photo `width` × `height` whose pixels are the fixture's picture
 * repeated (a grid of 480 × 360 tiles, cropped to the size). At most 256
 * tiles a side: 122,880 × 92,160. `quarterTurns` (anticlockwise, the `irot`
 * property) turns it as a phone held upright does; the size is then the
 * stored one, before the turn.
 */
export function heicOfSize(width: number, height: number, quarterTurns = 0): Buffer {
  const columns = Math.ceil(width / TILE_WIDTH);
  const rows = Math.ceil(height / TILE_HEIGHT);
  if (columns > 256 || rows > 256) throw new Error("A HEIF grid has at most 256 tiles a side");
  const tiles = columns * rows;
  const gridId = tiles + 1;
  const tileIds = Array.from({ length: tiles }, (_, i) => i + 1);
  // ImageGrid: version 0, flags 1 (32-bit sizes), rows and columns less one, the output size.
  const grid = Buffer.concat([Buffer.from([0, 1, rows - 1, columns - 1]), u32(width, height)]);

  const build = (mdatStart: number) => {
    const tileAt = mdatStart + 8;
    const gridAt = tileAt + tileData.length;
    // iloc version 0: 4-byte offsets and lengths, no base offset; one extent an item.
    const locations = [
      ...tileIds.map((id) => Buffer.concat([u16(id, 0, 1), u32(tileAt, tileData.length)])),
      Buffer.concat([u16(gridId, 0, 1), u32(gridAt, grid.length)]),
    ];
    // Properties: 1 hvcC, 2 the tile's ispe, 3 the grid's ispe, 4 its irot; 0x80 marks one essential.
    const associations = [
      ...tileIds.map((id) => Buffer.concat([u16(id), Buffer.from([2, 0x81, 0x02])])),
      Buffer.concat([
        u16(gridId),
        quarterTurns ? Buffer.from([2, 0x03, 0x84]) : Buffer.from([1, 0x03]),
      ]),
    ];
    const metaBox = fullBox(
      "meta",
      0,
      0,
      findBox(meta.subarray(12), "hdlr"),
      fullBox("pitm", 0, 0, u16(gridId)),
      fullBox("iloc", 0, 0, Buffer.from([0x44, 0x00]), u16(locations.length), ...locations),
      fullBox(
        "iinf",
        0,
        0,
        u16(tiles + 1),
        ...tileIds.map((id) => infe(id, "hvc1", true)),
        infe(gridId, "grid", false),
      ),
      box(
        "iprp",
        box(
          "ipco",
          hvcC,
          ispe(TILE_WIDTH, TILE_HEIGHT),
          ispe(width, height),
          box("irot", Buffer.from([quarterTurns & 3])),
        ),
        fullBox("ipma", 0, 0, u32(associations.length), ...associations),
      ),
      fullBox("iref", 0, 0, box("dimg", u16(gridId, tiles, ...tileIds))),
    );
    return { metaBox, mdat: box("mdat", tileData, grid) };
  };

  const ftyp = findBox(fixture, "ftyp");
  const sized = build(0);
  const { metaBox, mdat } = build(ftyp.length + sized.metaBox.length);
  return Buffer.concat([ftyp, metaBox, mdat]);
}

/** The NAL units of an HEVC Annex B stream (each after its 00 00 01 start code). */
function nalUnitsOf(stream: Buffer) {
  const starts: number[] = [];
  for (let i = 0; i + 3 <= stream.length; i++) {
    if (stream[i] === 0 && stream[i + 1] === 0 && stream[i + 2] === 1) {
      starts.push(i + 3);
      i += 2;
    }
  }
  return starts.map((start, n) => {
    let end = n + 1 < starts.length ? starts[n + 1]! - 3 : stream.length;
    // A four-byte start code's leading zero belongs to the next one.
    while (end > start && stream[end - 1] === 0) end--;
    return stream.subarray(start, end);
  });
}

/**
 * A HEIC photo `width` × `height` stored in one piece (no grid): ffmpeg's
 * test picture coded by libx265, written once into `directory`.
 */
export function heicInOnePiece(width: number, height: number, directory: string): Buffer {
  const file = path.join(directory, `one-piece-${width}x${height}.heic`);
  if (fs.existsSync(file)) return fs.readFileSync(file);
  const coded = path.join(directory, `one-piece-${width}x${height}.hevc`);
  execFileSync("ffmpeg", [
    ...["-v", "error", "-y", "-f", "lavfi", "-i", `testsrc2=size=${width}x${height}:rate=1`],
    ...["-frames:v", "1", "-pix_fmt", "yuv420p", "-c:v", "libx265", "-preset", "ultrafast"],
    ...["-x265-params", "log-level=error", "-f", "hevc", coded],
  ]);
  const units = nalUnitsOf(fs.readFileSync(coded));
  const typeOf = (unit: Buffer) => (unit[0]! >> 1) & 0x3f;
  // The parameter sets (VPS 32, SPS 33, PPS 34) go in the decoder configuration, the rest in the data.
  const arrays = [32, 33, 34].map((type) => {
    const sets = units.filter((unit) => typeOf(unit) === type);
    return Buffer.concat([
      Buffer.from([0x80 | type]),
      u16(sets.length),
      ...sets.flatMap((set) => [u16(set.length), set]),
    ]);
  });
  // The fixture's configuration (Main profile, 4:2:0, 8 bits, four-byte lengths) with these sets.
  const config = box("hvcC", hvcC.subarray(8, 30), Buffer.from([arrays.length]), ...arrays);
  const data = Buffer.concat(
    units
      .filter((unit) => typeOf(unit) < 32 || typeOf(unit) > 34)
      .flatMap((unit) => [u32(unit.length), unit]),
  );
  const build = (dataAt: number) =>
    fullBox(
      "meta",
      0,
      0,
      findBox(meta.subarray(12), "hdlr"),
      fullBox("pitm", 0, 0, u16(1)),
      fullBox(
        "iloc",
        0,
        0,
        Buffer.from([0x44, 0x00]),
        u16(1),
        u16(1, 0, 1),
        u32(dataAt, data.length),
      ),
      fullBox("iinf", 0, 0, u16(1), infe(1, "hvc1", false)),
      box(
        "iprp",
        box("ipco", config, ispe(width, height)),
        fullBox("ipma", 0, 0, u32(1), u16(1), Buffer.from([2, 0x81, 0x02])),
      ),
    );
  const ftyp = findBox(fixture, "ftyp");
  const metaBox = build(ftyp.length + build(0).length + 8);
  const heic = Buffer.concat([ftyp, metaBox, box("mdat", data)]);
  fs.writeFileSync(file, heic);
  return heic;
}
