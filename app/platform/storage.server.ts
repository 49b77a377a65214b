import { type FileStorage, LocalDiskStorage } from "#storage/index";
import { env } from "./env.server";

/**
 * The app's one file store: the S3-compatible bucket `S3_BUCKET` when set
 * (every machine sees the same files), else `STORAGE_DIR` on the local disk.
 * Configured here, not in storage/, so importing the storage classes never
 * reads the environment. The S3 class (and the AWS SDK) is loaded only when a
 * bucket is set: it is most of a cold start's module loading
 * (docs/decisions/0083-one-build.md).
 */
export const storage: FileStorage = env.S3_BUCKET
  ? new (await import("#storage/s3")).S3Storage({
      bucket: env.S3_BUCKET,
      endpoint: env.S3_ENDPOINT,
      region: env.S3_REGION,
      accessKeyId: env.S3_ACCESS_KEY_ID,
      secretAccessKey: env.S3_SECRET_ACCESS_KEY,
      forcePathStyle: env.S3_FORCE_PATH_STYLE,
    })
  : new LocalDiskStorage(env.STORAGE_DIR);
