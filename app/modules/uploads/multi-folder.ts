import type { ItemType } from "~/modules/items/item-validation";
import { LIMITS } from "~/modules/plans/limits";

/** The multi-folder upload's messages (docs/product-rules.md, Uploads), shared by the browser and the server. */
export type WizardType = ItemType;
export const WIZARD_TYPES: readonly WizardType[] = ["link", "musing", "photo", "file", "video"];
export const MAX_FOLDERS = LIMITS.multiFolder.maxFolders;
export const PLEASE_SELECT_A_FOLDER = "Please select at least one folder";
export const NO_VALID_FOLDERS = "No valid folders selected for upload";
export const AT_LEAST_ONE_FOLDER = "At least one folder required";
export const TOO_MANY_FOLDERS = `Maximum ${MAX_FOLDERS} folders allowed`;
export const INVALID_FOLDER_ID = "Invalid folder ID";
/** When finishing a draft fails for a reason the user cannot fix; the draft is kept. */
export const FAILED_TO_ADD_CONTENT = "Failed to add content. Please try again.";
export const pausedMessage = (count: number) => `${count} paused folder(s) cannot be selected`;
export const selectAFile = (type: "photo" | "file" | "video") =>
  `Please select at least one ${type}`;
