import { describe, expect, test } from "vitest";
import { createFolder, createUser } from "#db/factories";
import { contentItems } from "#db/schema";
import { db } from "~/platform/db.server";
import { needsNote } from "./needs-note";
import { itemsThatWait, waitingByFolder } from "./needs-note.server";

const kinds: Omit<typeof contentItems.$inferInsert, "folderId" | "sortOrder">[] = [
  { type: "link", title: "Bare link", urls: ["https://a.example/"] },
  { type: "link", title: "Ticked, no text", addComment: true, commentText: "" },
  { type: "photo", title: "Text, not ticked", commentText: "stale" },
  { type: "file", title: "With a question", askQuestion: true, questionText: "Seen it?" },
  { type: "link", title: "With a comment", addComment: true, commentText: "Lovely" },
  { type: "musing", title: "A musing", note: "Thinking" },
];

function folderWith(userId: number) {
  const folder = createFolder(db, userId);
  db.insert(contentItems)
    .values(kinds.map((item, sortOrder) => ({ ...item, folderId: folder.id, sortOrder })))
    .run();
  return folder;
}

describe("an item that needs a note", () => {
  test("is a link, photo or file with neither a comment nor a question", () => {
    const stored = (title: string) =>
      db
        .select()
        .from(contentItems)
        .all()
        .find((item) => item.title === title)!;
    const user = createUser(db);
    folderWith(user.id);
    expect(kinds.map((kind) => needsNote(stored(kind.title!)))).toEqual([
      true,
      true,
      true,
      false,
      false,
      false,
    ]);
  });

  test("the SQL agrees, per folder, and only the owner's folders count", () => {
    const owner = createUser(db);
    const folder = folderWith(owner.id);
    const other = folderWith(createUser(db).id);
    expect(itemsThatWait(owner.id, folder.id).map((item) => item.title)).toEqual([
      "Bare link",
      "Ticked, no text",
      "Text, not ticked",
    ]);
    expect(itemsThatWait(owner.id, other.id)).toEqual([]);
    expect(waitingByFolder(owner.id)).toEqual(new Map([[folder.id, ["note", "note", "note"]]]));
  });

  test("a video not prepared and a missing file wait too, each named for what it waits for", () => {
    const owner = createUser(db);
    const folder = createFolder(db, owner.id);
    const withNote = { addComment: true, commentText: "Look" };
    db.insert(contentItems)
      .values([
        {
          folderId: folder.id,
          sortOrder: 0,
          type: "video",
          title: "Clip",
          videoStatus: "preparing",
          ...withNote,
        },
        {
          folderId: folder.id,
          sortOrder: 1,
          type: "photo",
          title: "Gone",
          filePaths: ["a.jpg"],
          fileNames: ["a.jpg"],
          missingFiles: ["a.jpg"],
          ...withNote,
        },
        {
          folderId: folder.id,
          sortOrder: 1,
          type: "photo",
          title: "Replaced since",
          filePaths: ["new.jpg"],
          fileNames: ["new.jpg"],
          missingFiles: ["old.jpg"],
          ...withNote,
        },
        {
          folderId: folder.id,
          sortOrder: 2,
          type: "video",
          title: "Ready clip",
          videoStatus: "ready",
          ...withNote,
        },
        { folderId: folder.id, sortOrder: 3, type: "link", title: "Bare" },
        { folderId: folder.id, sortOrder: 4, type: "musing", title: "Goes", note: "Hi" },
      ])
      .run();
    expect(itemsThatWait(owner.id, folder.id)).toEqual([
      { id: expect.any(Number), title: "Clip", waitingFor: "video" },
      { id: expect.any(Number), title: "Gone", waitingFor: "file" },
      { id: expect.any(Number), title: "Bare", waitingFor: "note" },
    ]);
  });
});
