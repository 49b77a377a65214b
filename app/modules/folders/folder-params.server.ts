import { invariantResponse } from "~/platform/errors.server";

export function parseFolderId(value: string | undefined) {
  const id = Number(value);
  invariantResponse(Number.isSafeInteger(id) && id > 0);
  return id;
}
