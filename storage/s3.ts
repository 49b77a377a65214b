import crypto from "node:crypto";
import { Readable } from "node:stream";
import type { S3Client } from "@aws-sdk/client-s3";
import { type ByteRange, type FileStorage, FileTooLargeError, isStorageKey } from "./storage";

export type S3Settings = {
  bucket: string;
  /** For anything but AWS itself: Tigris, R2, MinIO (`https://fly.storage.tigris.dev`). */
  endpoint?: string;
  region: string;
  /** Without them the SDK's own chain applies (AWS_ACCESS_KEY_ID, an instance role…). */
  accessKeyId?: string;
  secretAccessKey?: string;
  /** `bucket` in the path instead of the host name: MinIO and most self-hosted servers. */
  forcePathStyle?: boolean;
};

/**
 * Multipart parts are 5 MiB (S3's minimum) and sent one at a time, so an
 * upload of any size holds about two parts in memory, never the whole file.
 */
const PART_BYTES = 5 * 1024 * 1024;

/**
 * The AWS SDK, loaded when the store is first used: it is the largest thing
 * the server would load at start, and most deployments keep files on disk
 * (docs/performance.md, "Cold start").
 */
async function loadSdk() {
  const [client, storage] = await Promise.all([
    import("@aws-sdk/client-s3"),
    import("@aws-sdk/lib-storage"),
  ]);
  return { ...client, Upload: storage.Upload };
}

function isNotFound(sdk: Awaited<ReturnType<typeof loadSdk>>, error: unknown) {
  return (
    error instanceof sdk.S3ServiceException &&
    (error.name === "NoSuchKey" ||
      error.name === "NotFound" ||
      error.$metadata.httpStatusCode === 404)
  );
}

/**
 * Files as objects in one S3-compatible bucket, each under its key at the
 * bucket's root. An object exists only once its upload completes (a single
 * PUT, or a multipart upload that is completed), so a reader never sees half
 * a file; a failed multipart upload is aborted, and one cut short by a crash
 * is the bucket's to expire (an "abort incomplete multipart uploads"
 * lifecycle rule, docs/deploy.md), hence no `removeIncomplete` here.
 */
export class S3Storage implements FileStorage {
  readonly bucket: string;
  private readonly sdk = loadSdk();
  private readonly client: Promise<S3Client>;

  constructor(settings: S3Settings) {
    this.bucket = settings.bucket;
    this.client = this.sdk.then(
      ({ S3Client }) =>
        new S3Client({
          region: settings.region,
          endpoint: settings.endpoint,
          forcePathStyle: settings.forcePathStyle,
          credentials:
            settings.accessKeyId && settings.secretAccessKey
              ? { accessKeyId: settings.accessKeyId, secretAccessKey: settings.secretAccessKey }
              : undefined,
          // The SDK's default CRC checksums use a trailer encoding that several
          // S3-compatible services (and older MinIO) refuse; the signature
          // already covers integrity on the wire.
          requestChecksumCalculation: "WHEN_REQUIRED",
          responseChecksumValidation: "WHEN_REQUIRED",
        }),
    );
  }

  async put(source: AsyncIterable<Uint8Array>, options: { maxBytes?: number } = {}) {
    const { maxBytes } = options;
    const key = crypto.randomBytes(16).toString("hex");
    let size = 0;
    // The source's own failure (too large, a dropped connection) is the one
    // to report, not whatever the upload then says about being cut short.
    let sourceError: unknown;
    async function* counted() {
      try {
        for await (const chunk of source) {
          size += chunk.byteLength;
          if (maxBytes !== undefined && size > maxBytes) throw new FileTooLargeError(maxBytes);
          yield chunk;
        }
      } catch (error) {
        sourceError = error;
        throw error;
      }
    }
    const { Upload } = await this.sdk;
    const upload = new Upload({
      client: await this.client,
      params: {
        Bucket: this.bucket,
        Key: key,
        Body: Readable.from(counted(), { objectMode: false }),
      },
      partSize: PART_BYTES,
      queueSize: 1,
      leavePartsOnError: false,
    });
    try {
      await upload.done();
      return { key, size };
    } catch (error) {
      throw sourceError ?? error;
    }
  }

  async get(key: string, options: { range?: ByteRange } = {}): Promise<Readable | null> {
    if (!isStorageKey(key)) return null;
    const sdk = await this.sdk;
    const { range } = options;
    try {
      const response = await (await this.client).send(
        new sdk.GetObjectCommand({
          Bucket: this.bucket,
          Key: key,
          Range: range ? `bytes=${range.start}-${range.end}` : undefined,
        }),
      );
      if (!(response.Body instanceof Readable)) throw new Error(`No body for object ${key}`);
      return response.Body;
    } catch (error) {
      if (isNotFound(sdk, error)) return null;
      throw error;
    }
  }

  async delete(key: string) {
    if (!isStorageKey(key)) return;
    const { DeleteObjectCommand } = await this.sdk;
    await (await this.client).send(new DeleteObjectCommand({ Bucket: this.bucket, Key: key }));
  }

  async stat(key: string) {
    if (!isStorageKey(key)) return null;
    const sdk = await this.sdk;
    try {
      const head = await (await this.client).send(
        new sdk.HeadObjectCommand({ Bucket: this.bucket, Key: key }),
      );
      return { size: head.ContentLength ?? 0, modifiedAt: head.LastModified ?? new Date(0) };
    } catch (error) {
      if (isNotFound(sdk, error)) return null;
      throw error;
    }
  }

  async *list(): AsyncIterable<string> {
    const { paginateListObjectsV2 } = await this.sdk;
    for await (const page of paginateListObjectsV2(
      { client: await this.client },
      { Bucket: this.bucket },
    )) {
      for (const object of page.Contents ?? []) {
        if (isStorageKey(object.Key)) yield object.Key;
      }
    }
  }
}
