import type { ContentItem } from "#db/types";

type ItemFiles = Pick<ContentItem, "type" | "filePaths" | "fileNames" | "thumbnailPaths">;

/**
 * The stored files an item cannot go without: a photo's or a file's own bytes, a video's clip
 * (the web version plays it) and its poster (the e-mail shows it). Thumbnails of photos are the
 * dashboard's only, and a link's preview picture can be left out (the link still goes).
 */
export function filesItNeeds(item: ItemFiles): string[] {
  if (item.type === "photo" || item.type === "file") return item.filePaths.filter(Boolean);
  if (item.type === "video") {
    return [item.filePaths[0], item.thumbnailPaths[0]].filter((key): key is string => Boolean(key));
  }
  return [];
}

/**
 * Why the item stayed behind, on its card: "The photo's file is missing: add it again" (the
 * video's; "The file is missing" for a file), or the files it names when it has several. Null
 * once none of the files the last send found gone is the item's any more (the sender removed
 * or replaced them); a send that finds them back clears them itself
 * (app/modules/sending/missing-files.server.ts).
 */
export function missingFileReason(item: ItemFiles & { missingFiles: string[] }): string | null {
  const needed = filesItNeeds(item);
  const gone = item.missingFiles.filter((key) => needed.includes(key));
  if (gone.length === 0) return null;
  if (item.filePaths.length <= 1) {
    const whose = item.type === "file" ? "file" : `${item.type}'s file`;
    return `The ${whose} is missing: add it again`;
  }
  const names = item.filePaths
    .map((key, index) => (gone.includes(key) ? (item.fileNames[index] ?? item.type) : null))
    .filter((name): name is string => name !== null);
  const listed = new Intl.ListFormat("en-GB", { type: "conjunction" }).format(names);
  return names.length === 1
    ? `The file of ${listed} is missing: add it again`
    : `The files of ${listed} are missing: add them again`;
}
