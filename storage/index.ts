import { env } from "~/utils/env.server";
import { LocalDiskStorage } from "./local-disk";
import type { FileStorage } from "./storage";

export { LocalDiskStorage } from "./local-disk";
export type { FileStorage } from "./storage";
export { FileTooLargeError, isStorageKey } from "./storage";

/** The app's one file store: `STORAGE_DIR` on the local disk. */
export const storage: FileStorage = new LocalDiskStorage(env.STORAGE_DIR);
