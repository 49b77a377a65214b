import type { Readable } from "node:stream";

/**
 * Where uploaded files live. Callers only ever see opaque keys chosen by the
 * storage (never a user's filename), so a second implementation (an
 * S3-compatible bucket) can replace the local disk without touching them.
 */
export interface FileStorage {
  /**
   * Streams `source` into a new object under a fresh random key. With
   * `maxBytes`, stops reading as soon as the count passes it and throws
   * `FileTooLargeError`. On any failure nothing is left behind.
   */
  put(
    source: AsyncIterable<Uint8Array>,
    options?: { maxBytes?: number },
  ): Promise<{ key: string; size: number }>;
  /**
   * The object's bytes, or null when the key is unknown or malformed. With
   * `range`, only the bytes from `start` to `end` inclusive (an HTTP range
   * request's, already checked against the object's size).
   */
  get(key: string, options?: { range?: ByteRange }): Promise<Readable | null>;
  /** Removes the object; unknown or malformed keys are a no-op. */
  delete(key: string): Promise<void>;
  /** Size and last change, or null when the key is unknown or malformed. */
  stat(key: string): Promise<{ size: number; modifiedAt: Date } | null>;
  /** Every stored key (finished objects only). */
  list(): AsyncIterable<string>;
  /**
   * Removes the leftovers of writes that never finished (a crash mid-upload)
   * older than `olderThanMs`; returns how many. Optional: a bucket with an
   * "abort incomplete multipart uploads" rule needs nothing here.
   */
  removeIncomplete?(olderThanMs: number): Promise<number>;
}

/** Bytes `start` to `end`, both included, as in HTTP's `Content-Range`. */
export type ByteRange = { start: number; end: number };

export class FileTooLargeError extends Error {
  override name = "FileTooLargeError";

  constructor(public maxBytes: number) {
    super(`File is larger than ${maxBytes} bytes`);
  }
}

/** Keys are 128 random bits in lowercase hex; anything else never reaches a backend. */
export const STORAGE_KEY_PATTERN = /^[0-9a-f]{32}$/;

export function isStorageKey(key: unknown): key is string {
  return typeof key === "string" && STORAGE_KEY_PATTERN.test(key);
}
