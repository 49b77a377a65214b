import { type FileStorage, LocalDiskStorage } from "#storage/index";
import { withinDiskReserve } from "./disk-reserve.server";
import { env } from "./env.server";

/**
 * Every file the app stores (an upload through any door, a photo's
 * re-encoding, a prepared video, a link's preview image) keeps the data
 * volume's reserve for the database: its bytes stop before they would take
 * the volume below DISK_RESERVE_MB (app/platform/disk-reserve.server.ts).
 */
function keepingTheDiskReserve(store: FileStorage): FileStorage {
  const removeIncomplete = store.removeIncomplete?.bind(store);
  return {
    put: (source, options) => store.put(withinDiskReserve(source), options),
    get: (key, options) => store.get(key, options),
    delete: (key) => store.delete(key),
    stat: (key) => store.stat(key),
    list: () => store.list(),
    ...(removeIncomplete && { removeIncomplete }),
  };
}

/**
 * The app's one file store: the S3-compatible bucket `S3_BUCKET` when set
 * (every machine sees the same files), else `STORAGE_DIR` on the local disk.
 * Configured here, not in storage/, so importing the storage classes never
 * reads the environment. The S3 class (and the AWS SDK) is loaded only when a
 * bucket is set: it is most of a cold start's module loading
 * (docs/decisions/0083-one-build.md).
 */
export const storage: FileStorage = keepingTheDiskReserve(
  env.S3_BUCKET
    ? new (await import("#storage/s3")).S3Storage({
        bucket: env.S3_BUCKET,
        endpoint: env.S3_ENDPOINT,
        region: env.S3_REGION,
        accessKeyId: env.S3_ACCESS_KEY_ID,
        secretAccessKey: env.S3_SECRET_ACCESS_KEY,
        forcePathStyle: env.S3_FORCE_PATH_STYLE,
      })
    : new LocalDiskStorage(env.STORAGE_DIR),
);
