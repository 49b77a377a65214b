import { unzipSync } from "fflate";
import { describe, expect, test } from "vitest";
import { createFolder, createItem, createUser } from "#db/factories";
import { createAnswer, createSentIssue } from "#db/sent-issue-factories";
import { db } from "~/platform/db.server";
import { storage } from "~/platform/storage.server";
import { EXPORTS_PER_USER, exportZip, takeExportAttempt, zipSegment } from "./data-export.server";

async function put(bytes: Uint8Array) {
  return (
    await storage.put(
      (async function* () {
        yield bytes;
      })(),
    )
  ).key;
}

async function zipOf(userId: number) {
  const chunks: Uint8Array[] = [];
  for await (const chunk of exportZip(userId)) chunks.push(chunk);
  return unzipSync(Buffer.concat(chunks));
}

const text = (bytes: Uint8Array | undefined) => new TextDecoder().decode(bytes);

describe("exportZip", () => {
  test("holds every folder, item and file of the owner, and nobody else's", async () => {
    const owner = createUser(db);
    const stranger = createUser(db);
    const family = createFolder(db, owner.id, {
      name: "Family",
      recipients: [{ name: "Mum", email: "mum@example.com" }],
    });
    const work = createFolder(db, owner.id, { name: "Work", recipients: [] });
    const theirs = createFolder(db, stranger.id, { name: "Not mine" });
    const photo = new Uint8Array(70_000).map((_, index) => index % 251);
    const photoKey = await put(photo);
    const notesKey = await put(new TextEncoder().encode("meeting notes"));
    createItem(db, family.id, { title: "A thought", note: "Hello" });
    createItem(db, family.id, {
      type: "photo",
      title: "Beach",
      filePaths: [photoKey],
      fileNames: ["beach.jpg"],
      fileSizes: [photo.length],
      mimeTypes: ["image/jpeg"],
    });
    createItem(db, work.id, {
      type: "file",
      title: "Notes",
      filePaths: [notesKey],
      fileNames: ["../notes.txt"],
      fileSizes: [13],
      mimeTypes: ["text/plain"],
      sentAt: new Date(),
    });
    createItem(db, theirs.id, { title: "Secret" });
    const sent = createSentIssue(db, family.id, {
      titles: ["Garden"],
      emails: ["mum@example.com"],
    });
    const answer = { folderId: family.id, copy: sent.copies[0]!, itemId: sent.items[0]!.id };
    createAnswer(db, { ...answer, userId: owner.id });
    const note = createAnswer(db, { ...answer, userId: owner.id, body: "So green!" });
    const theirIssue = createSentIssue(db, theirs.id, { titles: ["Theirs"], emails: ["x@y.io"] });
    createAnswer(db, {
      userId: stranger.id,
      folderId: theirs.id,
      copy: theirIssue.copies[0]!,
      itemId: theirIssue.items[0]!.id,
      body: "Not for the owner",
    });

    const zip = await zipOf(owner.id);
    const folders = JSON.parse(text(zip["folders.json"]));
    const items = JSON.parse(text(zip["items.json"]));
    expect(folders.map((folder: { name: string }) => folder.name)).toEqual(["Family", "Work"]);
    expect(folders[0].recipients).toEqual([{ name: "Mum", email: "mum@example.com" }]);
    expect(items.map((item: { title: string }) => item.title)).toEqual([
      "A thought",
      "Beach",
      "Garden",
      "Notes",
    ]);
    const [beach, notes] = [items[1], items[3]];
    expect(beach.files).toMatchObject([{ name: "beach.jpg", mimeType: "image/jpeg" }]);
    expect(zip[beach.files[0].path]).toEqual(photo);
    expect(notes.files[0].path).toBe(`files/${notes.id}/1-__notes.txt`);
    expect(text(zip[notes.files[0].path])).toBe("meeting notes");
    const answers = JSON.parse(text(zip["answers.json"]));
    expect(answers).toMatchObject([
      { kind: "heart", text: null, recipient: "mum@example.com", issueId: sent.ledger.id },
      { id: note.id, kind: "note", text: "So green!", itemId: sent.items[0]!.id },
    ]);
    expect(answers).toHaveLength(2);
    expect(Object.keys(zip)).toHaveLength(5);
  });
});

describe("zipSegment", () => {
  test("keeps a name inside its folder", () => {
    expect(zipSegment("../../etc/passwd")).toBe("__.._etc_passwd");
    expect(zipSegment(".hidden")).toBe("_hidden");
    expect(zipSegment("")).toBe("file");
    expect(zipSegment("Photo (1).jpg")).toBe("Photo (1).jpg");
  });
});

describe("takeExportAttempt", () => {
  test("allows a few exports an hour per account", async () => {
    const user = createUser(db);
    for (let attempt = 0; attempt < EXPORTS_PER_USER.points; attempt++) {
      expect((await takeExportAttempt(user.id)).allowed).toBe(true);
    }
    expect((await takeExportAttempt(user.id)).allowed).toBe(false);
    expect((await takeExportAttempt(createUser(db).id)).allowed).toBe(true);
  });
});
