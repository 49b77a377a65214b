import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import { MemoryBudget, type Reservation } from "./memory-budget.server";
import { processFolder } from "./process-folder.server";
import { singleton } from "./singleton.server";

/**
 * Where a door puts bytes too many to hold in memory: a temporary file,
 * counted against a disk cap of its own (docs/memory-budget.md), parsed from
 * there and removed on every path. The files live in the process's own
 * folder (app/platform/process-folder.server.ts), removed when it exits, or
 * by the next server's start when it was killed outright.
 */

/** The most all spooled files together may take on disk at once. */
export const SPOOL_DISK_CAP_BYTES = 1024 * 1024 * 1024;

const diskBudget = singleton("spool-disk-budget", () => new MemoryBudget(SPOOL_DISK_CAP_BYTES));

export class SpoolFullError extends Error {
  override name = "SpoolFullError";
}

export class SpoolTooLargeError extends Error {
  override name = "SpoolTooLargeError";
  constructor(readonly maxBytes: number) {
    super(`More than ${maxBytes} bytes`);
  }
}

/** A spooled file: its bytes on disk, counted against the cap until removed. */
export type SpooledFile = {
  readonly path: string;
  readonly size: number;
  /** A stream of the file's bytes, for a parser. */
  open(): fs.ReadStream;
  /** Removes the file and gives its bytes back to the cap; safe to call twice. */
  remove(): Promise<void>;
};

/**
 * Writes `source` to a new temporary file, at most `maxBytes`: a file past
 * that is a SpoolTooLargeError, a full disk cap a SpoolFullError, and either
 * way (or if the source fails) the file is already gone when it is thrown.
 * The disk cap's room is taken as the bytes arrive.
 */
export async function spoolToFile(
  source: AsyncIterable<Uint8Array>,
  { maxBytes }: { maxBytes: number },
): Promise<SpooledFile> {
  const file = path.join(processFolder("spool"), crypto.randomUUID());
  const room: Reservation | null = diskBudget.tryReserve(0);
  if (!room) throw new SpoolFullError("The spool is full");
  let size = 0;
  let removed = false;
  const remove = async () => {
    if (removed) return;
    removed = true;
    await fs.promises.rm(file, { force: true });
    room.release();
  };
  const counted = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      size += chunk.byteLength;
      if (size > maxBytes) return done(new SpoolTooLargeError(maxBytes));
      if (!room.grow(chunk.byteLength)) return done(new SpoolFullError("The spool is full"));
      done(null, chunk);
    },
  });
  try {
    await pipeline(source, counted, fs.createWriteStream(file, { flags: "wx", mode: 0o600 }));
  } catch (error) {
    await remove();
    throw error;
  }
  return { path: file, size, open: () => fs.createReadStream(file), remove };
}

/** Bytes the spool holds now (for tests and the flood's report). */
export function spooledBytes() {
  return diskBudget.usedBytes;
}
