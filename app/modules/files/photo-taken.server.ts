/**
 * The day a photo was taken, as its camera wrote it (EXIF DateTimeOriginal, "2019:06:01
 * 10:00:00"), read from the EXIF block sharp already hands over while the photo is re-encoded:
 * the app titles a camera-named photo by it (docs/decisions/0248-the-server-fills-a-photos-title-and-keeps-refused-files.md).
 * Only the day is kept; the re-encoded photo carries no metadata. The camera's clock has no
 * zone, and the day is the one the person saw, so it is kept as written: "2019-06-01".
 * Anything unreadable is no date, never an error.
 */
const EXIF_IFD_POINTER = 0x8769;
const DATE_TIME_ORIGINAL = 0x9003;
const ASCII = 2;

export function photoTakenOn(exif: Uint8Array | undefined): string | null {
  if (!exif) return null;
  let tiff = Buffer.from(exif.buffer, exif.byteOffset, exif.byteLength);
  // sharp gives the APP1 block's content, "Exif\0\0" then the TIFF structure.
  if (tiff.toString("latin1", 0, 6) === "Exif\0\0") tiff = tiff.subarray(6);
  const order = tiff.toString("latin1", 0, 2);
  if (order !== "II" && order !== "MM") return null;
  const little = order === "II";
  const u16 = (at: number) => (little ? tiff.readUInt16LE(at) : tiff.readUInt16BE(at));
  const u32 = (at: number) => (little ? tiff.readUInt32LE(at) : tiff.readUInt32BE(at));
  /** The 12-byte entry of `tag` in the directory at `offset`. */
  const entryOf = (offset: number, tag: number) => {
    const count = u16(offset);
    for (let index = 0; index < count; index += 1) {
      const entry = offset + 2 + index * 12;
      if (u16(entry) === tag) return entry;
    }
    return null;
  };
  try {
    if (u16(2) !== 42) return null;
    const pointer = entryOf(u32(4), EXIF_IFD_POINTER);
    if (pointer === null) return null;
    const entry = entryOf(u32(pointer + 8), DATE_TIME_ORIGINAL);
    if (entry === null || u16(entry + 2) !== ASCII) return null;
    const length = u32(entry + 4);
    if (length < 10) return null;
    // Text over four bytes is stored where the entry points.
    const start = length > 4 ? u32(entry + 8) : entry + 8;
    if (start + 10 > tiff.length) return null;
    return calendarDay(tiff.toString("latin1", start, start + 10));
  } catch (error) {
    // A directory or an offset past the end of the block.
    if (error instanceof RangeError) return null;
    throw error;
  }
}

/** "2019:06:01" as "2019-06-01" when it is a real day; cameras write "0000:00:00" for none. */
function calendarDay(text: string) {
  const match = /^(\d{4}):(\d{2}):(\d{2})$/.exec(text);
  if (!match) return null;
  const [, year, month, day] = match.map(Number) as [number, number, number, number];
  const date = new Date(Date.UTC(year, month - 1, day));
  const real = year >= 1900 && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
  return real ? `${match[1]}-${match[2]}-${match[3]}` : null;
}
