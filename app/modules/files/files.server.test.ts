import { Readable } from "node:stream";
import { describe, expect, test } from "vitest";
import { createFolder, createItem, createUser } from "#db/factories";
import { db } from "~/platform/db.server";
import { storage } from "~/platform/storage.server";
import { findOwnedFile, storedFileResponse } from "./files.server";

/** A stored MP4's owner asking for parts of it, as Chromium's player does, against real storage. */
async function ownedVideo() {
  const user = createUser(db);
  const folder = createFolder(db, user.id);
  const bytes = Buffer.from(Array.from({ length: 1000 }, (_, index) => index % 251));
  const stored = await storage.put(Readable.from([bytes]));
  createItem(db, folder.id, {
    type: "file",
    filePaths: [stored.key],
    fileNames: ["Beach day.mp4"],
    fileSizes: [stored.size],
    mimeTypes: ["video/mp4"],
  });
  return { bytes, file: findOwnedFile(user.id, stored.key) };
}

const asking = (range?: string) =>
  new Request("http://localhost/files/x", { headers: range ? { Range: range } : {} });

describe("storedFileResponse", () => {
  test("a range request gets 206 with its bytes alone and where they sit", async () => {
    const { bytes, file } = await ownedVideo();
    const response = await storedFileResponse(asking("bytes=100-199"), file);
    expect(response.status).toBe(206);
    expect(response.headers.get("Content-Range")).toBe("bytes 100-199/1000");
    expect(response.headers.get("Content-Length")).toBe("100");
    expect(response.headers.get("Content-Type")).toBe("video/mp4");
    expect(response.headers.get("Content-Disposition")).toMatch(/^inline;/);
    expect(response.headers.get("Content-Security-Policy")).toContain("media-src 'self'");
    expect(Buffer.from(await response.arrayBuffer())).toEqual(bytes.subarray(100, 200));

    const open = await storedFileResponse(asking("bytes=990-"), file);
    expect(open.status).toBe(206);
    expect(Buffer.from(await open.arrayBuffer())).toEqual(bytes.subarray(990));
  });

  test("no range is the whole file, saying ranges are taken; past the end is a 416", async () => {
    const { bytes, file } = await ownedVideo();
    const whole = await storedFileResponse(asking(), file);
    expect(whole.status).toBe(200);
    expect(whole.headers.get("Accept-Ranges")).toBe("bytes");
    expect(Buffer.from(await whole.arrayBuffer())).toEqual(bytes);

    const past = await storedFileResponse(asking("bytes=1000-"), file);
    expect(past.status).toBe(416);
    expect(past.headers.get("Content-Range")).toBe("bytes */1000");
  });

  test("someone else's file is the 404, range or not", async () => {
    const { file } = await ownedVideo();
    const stranger = createUser(db);
    const theirs = findOwnedFile(stranger.id, file!.key);
    expect(theirs).toBeNull();
    const answer = await storedFileResponse(asking("bytes=0-1"), theirs).catch((e) => e);
    expect((answer as Response).status).toBe(404);
  });
});
