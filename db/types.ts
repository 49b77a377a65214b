import type { AppDatabase } from "./connection";
import type {
  contentItems,
  folderRecipientStates,
  folders,
  sendLedger,
  sendLedgerRecipients,
  uploadDrafts,
  users,
} from "./schema";

/**
 * Row types and the transaction handle, declared once: modules, tests and
 * scripts name these instead of spelling `typeof table.$inferSelect` again.
 */
export type User = typeof users.$inferSelect;
export type Folder = typeof folders.$inferSelect;
export type ContentItem = typeof contentItems.$inferSelect;
export type SendLedger = typeof sendLedger.$inferSelect;
export type SendLedgerRecipient = typeof sendLedgerRecipients.$inferSelect;
export type UploadDraft = typeof uploadDrafts.$inferSelect;
export type FolderRecipientState = typeof folderRecipientStates.$inferSelect;

/** The handle a `transaction` callback gets: the database's own query API, inside the transaction. */
export type Transaction = Parameters<Parameters<AppDatabase["transaction"]>[0]>[0];
