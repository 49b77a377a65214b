import crypto from "node:crypto";
import { eq } from "drizzle-orm";
import { describe, expect, test } from "vitest";
import { createFolder, createUser } from "#db/factories";
import { contentItems, type DraftFile, uploadDrafts } from "#db/schema";
import { KEPT_FILES_FIELD, QuickUploadDetailsSchema } from "~/modules/items/item-validation";
import { db } from "~/platform/db.server";
import { ONE_TIME_KEY_FIELD } from "~/platform/one-time-keys";
import { newOneTimeKey } from "~/platform/one-time-keys.server";
import { storage } from "~/platform/storage.server";
import {
  addUploadFromSheet,
  keepRefusedFiles,
  keptFilesOf,
  releaseKeptFiles,
  sheetFiles,
  stillKept,
} from "./kept-files.server";
import { createDraft } from "./upload-drafts.server";

const MB = 1024 * 1024;

async function storedPhoto(name: string): Promise<DraftFile> {
  const bytes = crypto.randomBytes(64);
  const { key } = await storage.put(
    (async function* () {
      yield new Uint8Array(bytes);
    })(),
  );
  return { key, name, size: bytes.length, mimeType: "image/jpeg" };
}

function formNaming(draftId?: string) {
  const form = new FormData();
  form.set("title", "");
  if (draftId !== undefined) form.set(KEPT_FILES_FIELD, draftId);
  return form;
}

const draftRow = (id: string) =>
  db.select().from(uploadDrafts).where(eq(uploadDrafts.id, id)).get();
const exists = async (key: string) => (await storage.stat(key)) !== null;

/** A refused form's photo, kept: the sender's draft, as the Add sheet's action keeps it. */
async function refusedWith(userId: number, photo: DraftFile) {
  const sheet = sheetFiles(userId, "photo", formNaming(), [photo]);
  const { kept } = await keepRefusedFiles(userId, "photo", sheet, [photo], "Photo, Wed 2 Dec");
  return kept!;
}

describe("the files of an Add sheet's refused form", () => {
  test("are kept as the sender's draft; the form that names it goes with its files", async () => {
    const user = createUser(db);
    const photo = await storedPhoto("IMG_2041.jpg");
    const kept = await refusedWith(user.id, photo);
    expect(kept).toEqual({ draftId: expect.any(String), names: ["IMG_2041.jpg"] });
    expect(draftRow(kept.draftId)).toMatchObject({
      userId: user.id,
      type: "photo",
      files: [photo],
      fields: { title: "Photo, Wed 2 Dec", addComment: false },
    });

    const again = sheetFiles(user.id, "photo", formNaming(kept.draftId), []);
    expect(again.files).toEqual([photo]);
    expect(again.draft?.id).toBe(kept.draftId);
    // Sent again without files and refused again: what was kept stays.
    expect(await keepRefusedFiles(user.id, "photo", again, [], "")).toEqual({
      kept,
      problem: null,
    });
    expect(stillKept(user.id, "photo", formNaming(kept.draftId))).toEqual(kept);
  });

  test("another sender's draft, an expired one, or one of another type is no form's", async () => {
    const user = createUser(db);
    const kept = await refusedWith(user.id, await storedPhoto("IMG_1.jpg"));
    const other = createUser(db);
    expect(sheetFiles(other.id, "photo", formNaming(kept.draftId), [])).toEqual({
      files: [],
      draft: null,
    });
    expect(sheetFiles(user.id, "video", formNaming(kept.draftId), []).draft).toBeNull();
    expect(sheetFiles(user.id, "photo", formNaming("../../etc"), []).draft).toBeNull();
    expect(stillKept(other.id, "photo", formNaming(kept.draftId))).toBeNull();

    const yesterday = new Date(Date.now() - 25 * 60 * 60 * 1000);
    const old = await createDraft(
      user.id,
      "photo",
      QuickUploadDetailsSchema.parse({ title: "Old" }),
      [await storedPhoto("IMG_2.jpg")],
      yesterday,
    );
    expect(sheetFiles(user.id, "photo", formNaming(old.id), []).draft).toBeNull();
  });

  test("files sent with a form refused again replace those kept, which are released", async () => {
    const user = createUser(db);
    const first = await storedPhoto("IMG_1.jpg");
    const kept = await refusedWith(user.id, first);
    const second = await storedPhoto("IMG_2.jpg");
    const sheet = sheetFiles(user.id, "photo", formNaming(kept.draftId), [second]);
    expect(sheet.files).toEqual([second]);
    expect(await keepRefusedFiles(user.id, "photo", sheet, [second], "Beach")).toEqual({
      kept: { draftId: kept.draftId, names: ["IMG_2.jpg"] },
      problem: null,
    });
    expect(draftRow(kept.draftId)?.files).toEqual([second]);
    expect(await exists(first.key)).toBe(false);
  });

  test("without room in the sender's storage nothing is kept, and Storage Full! says so", async () => {
    const user = createUser(db);
    db.insert(contentItems)
      .values({
        folderId: createFolder(db, user.id).id,
        type: "file",
        title: "Nearly full",
        fileSizes: [50 * MB - 10],
      })
      .run();
    const photo = await storedPhoto("IMG_3.jpg");
    const sheet = sheetFiles(user.id, "photo", formNaming(), [photo]);
    const answer = await keepRefusedFiles(user.id, "photo", sheet, [photo], "");
    expect(answer).toMatchObject({ kept: null, problem: { title: "Storage Full!" } });
    expect(db.select().from(uploadDrafts).where(eq(uploadDrafts.userId, user.id)).all()).toEqual(
      [],
    );
  });

  test("once the item is saved the draft goes; its files stay with the item", async () => {
    const user = createUser(db);
    const folder = createFolder(db, user.id);
    const photo = await storedPhoto("IMG_4.jpg");
    const kept = await refusedWith(user.id, photo);
    const sheet = sheetFiles(user.id, "photo", formNaming(kept.draftId), []);
    db.insert(contentItems)
      .values({ folderId: folder.id, type: "photo", title: "Saved", filePaths: [photo.key] })
      .run();
    await releaseKeptFiles(user.id, sheet);
    expect(draftRow(kept.draftId)).toBeUndefined();
    expect(await exists(photo.key)).toBe(true);

    // Saved from new files instead: the kept ones go with their draft.
    const unused = await storedPhoto("IMG_5.jpg");
    const replaced = await refusedWith(user.id, unused);
    await releaseKeptFiles(user.id, sheetFiles(user.id, "photo", formNaming(replaced.draftId), []));
    expect(await exists(unused.key)).toBe(false);
    expect(keptFilesOf(null)).toBeNull();
  });
});

describe("the Add Photo sheet's save", () => {
  const sheetForm = (fields: Record<string, string>) => {
    const form = new FormData();
    form.set(ONE_TIME_KEY_FIELD, newOneTimeKey());
    for (const [name, value] of Object.entries(fields)) form.set(name, value);
    return form;
  };

  test("refused for its fields, keeps the photo; sent again without it, saves it", async () => {
    const user = createUser(db, { timeZone: "Europe/London" });
    const folder = createFolder(db, user.id);
    const photo = { ...(await storedPhoto("IMG_2041.jpg")), takenOn: "2019-06-01" };

    // Neither a comment nor a question, and no title: the title is filled, the photo kept.
    const refused = await addUploadFromSheet(user, folder.id, "photo", {
      formData: sheetForm({ title: "" }),
      stored: [photo],
    });
    expect(refused).toMatchObject({
      ok: false,
      status: 400,
      reply: {
        result: { initialValue: { title: "Photo, Sat 1 Jun 2019" } },
        problem: null,
        kept: { names: ["IMG_2041.jpg"] },
      },
    });
    if (refused.ok || !refused.reply.kept) throw new Error("expected the photo kept");

    const again = sheetForm({
      [KEPT_FILES_FIELD]: refused.reply.kept.draftId,
      title: "",
      addComment: "on",
      commentText: "Remember this?",
    });
    const saved = await addUploadFromSheet(user, folder.id, "photo", {
      formData: again,
      stored: [],
    });
    if (!saved.ok) throw new Error("expected the item saved");
    expect(saved.files).toBe(1);
    const items = db.select().from(contentItems).where(eq(contentItems.folderId, folder.id)).all();
    expect(items).toMatchObject([
      { title: "Photo, Sat 1 Jun 2019", filePaths: [photo.key], commentText: "Remember this?" },
    ]);
    expect(db.select().from(uploadDrafts).where(eq(uploadDrafts.userId, user.id)).all()).toEqual(
      [],
    );
    expect(await exists(photo.key)).toBe(true);

    // The same form sent again (a double tap) is answered with the item, and saves nothing.
    const repeat = await addUploadFromSheet(user, folder.id, "photo", {
      formData: again,
      stored: [],
    });
    expect(repeat).toEqual({ ok: true, location: saved.location, files: null });
    expect(
      db.select().from(contentItems).where(eq(contentItems.folderId, folder.id)).all(),
    ).toHaveLength(1);
  });
});
