import type { ByteRange } from "#storage/index";

/**
 * The one byte range an HTTP `Range` header asks of a file of `size` bytes
 * (RFC 9110, section 14): what browsers send to seek in a video. "full" when
 * the header is absent, malformed, of another unit or asks for several
 * ranges (answering those whole is allowed, and no player sends them);
 * "unsatisfiable" (a 416) when it starts past the end. Stored files never
 * change under their key, so `If-Range` always holds.
 */
export function byteRangeOf(
  header: string | null,
  size: number,
): { kind: "full" } | { kind: "unsatisfiable" } | ({ kind: "range" } & ByteRange) {
  const match = header ? /^bytes=(\d*)-(\d*)$/.exec(header.trim()) : null;
  if (!match || size === 0) return { kind: "full" };
  const [, first = "", last = ""] = match;
  if (first === "") {
    if (last === "") return { kind: "full" };
    const suffix = Number(last);
    if (suffix === 0) return { kind: "unsatisfiable" };
    return { kind: "range", start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(first);
  const end = last === "" ? size - 1 : Math.min(Number(last), size - 1);
  if (last !== "" && Number(last) < start) return { kind: "full" };
  if (start >= size) return { kind: "unsatisfiable" };
  return { kind: "range", start, end };
}
