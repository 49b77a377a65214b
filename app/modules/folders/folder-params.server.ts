import { FolderNotFoundError } from "./folders.server";

export function parseFolderId(value: string | undefined) {
  const id = Number(value);
  if (!Number.isSafeInteger(id) || id <= 0) throw new Response("Not Found", { status: 404 });
  return id;
}

/** Any folder that is not the user's own answers 404, exactly like one that does not exist. */
export function notFoundOnForeignFolder<T>(work: () => T): T {
  try {
    return work();
  } catch (error) {
    if (error instanceof FolderNotFoundError) throw new Response("Not Found", { status: 404 });
    throw error;
  }
}
