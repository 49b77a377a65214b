import fs from "node:fs";
import path from "node:path";
import { env } from "./env.server";

/**
 * The disk keeps room for the database
 * (docs/decisions/0245-the-disk-keeps-room-for-the-database.md): a file is
 * stored only while the data volume keeps DISK_RESERVE_MB free, so that once
 * uploads have taken all they may, SQLite still has room for log-ins,
 * deletes and every other write. The volume is read with statfs where the
 * database lives and, when uploads are files on this machine, where they
 * live; the least free of the two counts (on one volume, they are the same).
 */

const MB = 1024 * 1024;

export const RESERVE_BYTES = env.DISK_RESERVE_MB * MB;

/** A stored file's bytes written between two readings of the free space. */
export const READ_AGAIN_EVERY_BYTES = MB;

export class DiskReserveReachedError extends Error {
  override name = "DiskReserveReachedError";
}

/**
 * Free bytes of the volume `folder` is on, read at its nearest existing
 * folder (STORAGE_DIR is made by the first upload); null for a filesystem
 * that reports no size (a FUSE mount such as LiteFS's may not).
 */
function freeBytesAt(folder: string): number | null {
  let at = folder;
  for (;;) {
    try {
      const volume = fs.statfsSync(at);
      return volume.blocks > 0 ? volume.bavail * volume.bsize : null;
    } catch (error) {
      const parent = path.dirname(at);
      if ((error as NodeJS.ErrnoException).code !== "ENOENT" || parent === at) throw error;
      at = parent;
    }
  }
}

function dataFolders() {
  const folders = [path.dirname(path.resolve(env.DATABASE_PATH))];
  if (!env.S3_BUCKET) folders.push(path.resolve(env.STORAGE_DIR));
  return folders;
}

/**
 * Where the volume stands: the reserve `kept` whole; `in use` once uploads
 * have stopped at its line and the database's own writes take from it (which
 * they do at once); `gone` when less than half of it is left, the point at
 * which /healthz fails; `unmeasured` when no data volume reports its size.
 */
export type ReserveState = "kept" | "in use" | "gone" | "unmeasured";

export type DiskRoom = {
  /** The least free space of the data volumes; null when none reports its size. */
  freeBytes: number | null;
  reserveBytes: number;
  state: ReserveState;
};

function stateOf(freeBytes: number | null): ReserveState {
  if (freeBytes === null) return "unmeasured";
  if (freeBytes >= RESERVE_BYTES) return "kept";
  return freeBytes >= RESERVE_BYTES / 2 ? "in use" : "gone";
}

export function diskRoom(): DiskRoom {
  const measured = dataFolders()
    .map(freeBytesAt)
    .filter((free) => free !== null);
  const freeBytes = measured.length > 0 ? Math.min(...measured) : null;
  return { freeBytes, reserveBytes: RESERVE_BYTES, state: stateOf(freeBytes) };
}

export function describeDiskRoom({ freeBytes, reserveBytes }: DiskRoom) {
  const free = freeBytes === null ? "an unmeasured amount" : `${(freeBytes / MB).toFixed(1)} MB`;
  return `${free} free on the data volume, ${reserveBytes / MB} MB kept for the database (DISK_RESERVE_MB)`;
}

/**
 * `source`'s bytes, stopped with a DiskReserveReachedError before the chunk
 * that would take the data volume below its reserve. The free space is read
 * at the first chunk and again after every READ_AGAIN_EVERY_BYTES, and the
 * bytes passed on since are counted against it: the reader writes each chunk
 * before asking for the next, so one large file cannot cross the reserve
 * between two readings, and files written side by side each see the others'
 * bytes at their next reading.
 */
export async function* withinDiskReserve(
  source: AsyncIterable<Uint8Array>,
  readRoom: () => DiskRoom = diskRoom,
): AsyncGenerator<Uint8Array> {
  let room: DiskRoom | null = null;
  let bytesAllowed = 0;
  let sinceReading = 0;
  for await (const chunk of source) {
    if (!room || sinceReading >= READ_AGAIN_EVERY_BYTES) {
      room = readRoom();
      bytesAllowed =
        room.freeBytes === null ? Number.POSITIVE_INFINITY : room.freeBytes - room.reserveBytes;
      sinceReading = 0;
    }
    sinceReading += chunk.byteLength;
    if (sinceReading > bytesAllowed) {
      console.warn(`[disk] a file was not stored: ${describeDiskRoom(room)}`);
      throw new DiskReserveReachedError("Storing this file would use the database's reserve");
    }
    yield chunk;
  }
}
