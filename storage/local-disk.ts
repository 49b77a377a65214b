import crypto from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import type { Readable } from "node:stream";
import { type ByteRange, type FileStorage, FileTooLargeError, isStorageKey } from "./storage";

const PARTIAL_SUFFIX = ".partial";
const SHARD_PATTERN = /^[0-9a-f]{2}$/;

function isNotFound(error: unknown) {
  return (error as NodeJS.ErrnoException | undefined)?.code === "ENOENT";
}

/**
 * Files under one root directory: `<root>/ab/ab…` (the first two hex digits
 * shard the key so no directory grows too large). A write goes to
 * `<final>.partial`, is fsynced, then renamed, so a reader never sees half a
 * file and a crash leaves only a `.partial` that `removeIncomplete` sweeps.
 */
export class LocalDiskStorage implements FileStorage {
  readonly root: string;

  constructor(root: string) {
    this.root = path.resolve(root);
  }

  /** The path of a valid key; callers check the key first. */
  private pathOf(key: string) {
    return path.join(this.root, key.slice(0, 2), key);
  }

  async put(source: AsyncIterable<Uint8Array>, options: { maxBytes?: number } = {}) {
    const { maxBytes } = options;
    const key = crypto.randomBytes(16).toString("hex");
    const finalPath = this.pathOf(key);
    const partialPath = finalPath + PARTIAL_SUFFIX;
    await fs.mkdir(path.dirname(finalPath), { recursive: true });
    const handle = await fs.open(partialPath, "wx", 0o600);
    let open = true;
    let size = 0;
    try {
      for await (const chunk of source) {
        size += chunk.byteLength;
        // Stop before writing: the source is not read any further (for await
        // closes it), so an oversized upload costs at most one chunk.
        if (maxBytes !== undefined && size > maxBytes) throw new FileTooLargeError(maxBytes);
        let offset = 0;
        while (offset < chunk.byteLength) {
          const { bytesWritten } = await handle.write(chunk, offset, chunk.byteLength - offset);
          offset += bytesWritten;
        }
      }
      await handle.sync();
      open = false;
      await handle.close();
      await fs.rename(partialPath, finalPath);
      await this.syncDirectory(path.dirname(finalPath));
      return { key, size };
    } catch (error) {
      if (open) await handle.close().catch(() => {});
      await fs.rm(partialPath, { force: true }).catch(() => {});
      throw error;
    }
  }

  /** Makes the rename itself durable (best effort: not every filesystem allows it). */
  private async syncDirectory(directory: string) {
    try {
      const handle = await fs.open(directory, "r");
      try {
        await handle.sync();
      } finally {
        await handle.close();
      }
    } catch {
      // Directory fsync is unsupported on some platforms; the data is synced already.
    }
  }

  async get(key: string, options: { range?: ByteRange } = {}): Promise<Readable | null> {
    if (!isStorageKey(key)) return null;
    try {
      // Open first so a missing file is null here, not an error later in the stream.
      const handle = await fs.open(this.pathOf(key), "r");
      return handle.createReadStream(options.range ?? {});
    } catch (error) {
      if (isNotFound(error)) return null;
      throw error;
    }
  }

  async delete(key: string) {
    if (!isStorageKey(key)) return;
    await fs.rm(this.pathOf(key), { force: true });
  }

  async stat(key: string) {
    if (!isStorageKey(key)) return null;
    try {
      const stats = await fs.stat(this.pathOf(key));
      if (!stats.isFile()) return null;
      return { size: stats.size, modifiedAt: stats.mtime };
    } catch (error) {
      if (isNotFound(error)) return null;
      throw error;
    }
  }

  async *list(): AsyncIterable<string> {
    for await (const { shard, name } of this.entries()) {
      if (isStorageKey(name) && name.startsWith(shard)) yield name;
    }
  }

  async removeIncomplete(olderThanMs: number) {
    const cutoff = Date.now() - olderThanMs;
    let removed = 0;
    for await (const { shard, name } of this.entries()) {
      if (!name.endsWith(PARTIAL_SUFFIX)) continue;
      const key = name.slice(0, -PARTIAL_SUFFIX.length);
      if (!isStorageKey(key)) continue;
      const file = path.join(this.root, shard, name);
      try {
        const stats = await fs.stat(file);
        if (stats.mtimeMs >= cutoff) continue;
        await fs.rm(file, { force: true });
        removed += 1;
      } catch (error) {
        if (!isNotFound(error)) throw error;
      }
    }
    return removed;
  }

  /** Every file name inside the shard folders (streamed: the store may hold many). */
  private async *entries(): AsyncIterable<{ shard: string; name: string }> {
    let shards: string[];
    try {
      shards = (await fs.readdir(this.root, { withFileTypes: true }))
        .filter((entry) => entry.isDirectory() && SHARD_PATTERN.test(entry.name))
        .map((entry) => entry.name)
        .sort();
    } catch (error) {
      if (isNotFound(error)) return;
      throw error;
    }
    for (const shard of shards) {
      let directory: Awaited<ReturnType<typeof fs.opendir>>;
      try {
        directory = await fs.opendir(path.join(this.root, shard));
      } catch (error) {
        if (isNotFound(error)) continue;
        throw error;
      }
      for await (const entry of directory) {
        if (entry.isFile()) yield { shard, name: entry.name };
      }
    }
  }
}
