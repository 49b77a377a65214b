import type { KeptField } from "./resubmit";

/**
 * What both sides know about the busy answer (made in database-busy.server.ts):
 * a request that met the database's write lock held elsewhere past its short
 * wait. The page keeps what was typed and offers it again.
 */
export const DATABASE_BUSY = {
  title: "Busy for a moment: try again",
  text: "The server was busy for a moment and could not save this. What you typed is kept below: send it again in a few seconds.",
  retry: "Try again",
};

export type DatabaseBusyFailure = {
  kind: "database-busy";
  /** The posted form's fields as typed (none for a page's own read). */
  fields: KeptField[];
  /** The form's CSRF token, checked before the busy write: still this visitor's. */
  token: string | null;
  /** Where the form posted, or the page's own address. */
  action: string;
};

export function isDatabaseBusyFailure(value: unknown): value is DatabaseBusyFailure {
  return (
    typeof value === "object" &&
    value !== null &&
    (value as DatabaseBusyFailure).kind === "database-busy"
  );
}
