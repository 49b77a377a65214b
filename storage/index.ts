export { LocalDiskStorage } from "./local-disk";
export { S3Storage } from "./s3";
export type { FileStorage } from "./storage";
export { FileTooLargeError, isStorageKey } from "./storage";
