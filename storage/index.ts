// S3Storage is imported from "#storage/s3" by whoever configures a bucket: the
// AWS SDK is the heaviest package we load, and most deployments never use it.
export { LocalDiskStorage } from "./local-disk";
export type { ByteRange, FileStorage } from "./storage";
export { FileTooLargeError, isStorageKey } from "./storage";
