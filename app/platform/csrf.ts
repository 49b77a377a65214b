import type { KeptField } from "./resubmit";

/** What both sides know about the CSRF guard (the checks live in csrf.server.ts). */
export const CSRF_FIELD = "csrf";

export type CsrfFailure = {
  kind: "csrf";
  reason: "missing" | "invalid" | "cross_origin";
  fields: KeptField[];
  action: string;
  token: string;
};

export function isCsrfFailure(value: unknown): value is CsrfFailure {
  return typeof value === "object" && value !== null && (value as CsrfFailure).kind === "csrf";
}
