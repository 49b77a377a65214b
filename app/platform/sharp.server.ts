import type Sharp from "sharp";

let loaded: Promise<typeof Sharp> | undefined;

/**
 * sharp (libvips), loaded with the first image instead of at start
 * (docs/performance.md, "bench:cold-start"), with one libvips thread: two
 * decodes of large photos at once would not fit in a 512 MB machine's memory
 * (app/modules/files/photo-processing.server.ts takes photos one at a time too).
 */
export function loadSharp(): Promise<typeof Sharp> {
  loaded ??= import("sharp").then(({ default: sharp }) => {
    sharp.concurrency(1);
    return sharp;
  });
  return loaded;
}
