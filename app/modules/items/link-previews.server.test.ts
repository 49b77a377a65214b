import { eq } from "drizzle-orm";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createFolder, createUser } from "#db/factories";
import { contentItems } from "#db/schema";
import { PICTURE_COMMENT, startPreviewPages } from "#tests/support/preview-pages";
import { folderContentSize } from "~/modules/folders/folders.server";
import { getUsage } from "~/modules/plans/quota.server";
import { db } from "~/platform/db.server";
import { consumeRateLimit } from "~/platform/rate-limit.server";
import { storage } from "~/platform/storage.server";
import { createTextItem, deleteItem, updateTextItem } from "./items.server";
import {
  inParallel,
  PREVIEW_LIMITS,
  PREVIEWS_PER_USER,
  readPreview,
  removePreview,
  removePreviewImage,
  runPreviewPass,
} from "./link-previews.server";

let pages: Awaited<ReturnType<typeof startPreviewPages>>;
beforeAll(async () => {
  pages = await startPreviewPages();
});
afterAll(() => pages.close());

function senderWithFolder() {
  const user = createUser(db);
  return { user, folder: createFolder(db, user.id) };
}

const link = (url: string) => ({
  type: "link" as const,
  title: "Worth a read",
  urls: [url],
  addComment: false,
  askQuestion: false,
  commentText: "",
  questionText: "",
  responseExpectation: "na" as const,
});

const row = (id: number) => db.select().from(contentItems).where(eq(contentItems.id, id)).get();
const loopback = { allowLoopback: true };

async function storedBytes(key: string) {
  const stream = await storage.get(key);
  const chunks: Buffer[] = [];
  for await (const chunk of stream ?? []) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

describe("link previews", () => {
  test("saving marks the preview pending; a pass fills the card and stores a clean, small picture", async () => {
    const { user, folder } = senderWithFolder();
    const item = createTextItem(user.id, folder.id, link(`${pages.origin}/article/tides`));
    expect(item.previewStatus).toBe("pending");
    expect(item.previewUrl).toBe(`${pages.origin}/article/tides`);

    await runPreviewPass(loopback);
    const ready = row(item.id);
    expect(ready).toMatchObject({
      previewStatus: "ready",
      previewTitle: "tides: the long read",
      previewDescription: "Everything about tides, in one page.",
      previewSiteName: "Example Gazette",
    });
    expect(ready?.previewImageKey).toMatch(/^[0-9a-f]{32}$/);
    const bytes = await storedBytes(ready?.previewImageKey ?? "");
    expect(bytes.length).toBe(ready?.previewImageSize);
    const metadata = await sharp(bytes).metadata();
    expect(metadata.format).toBe("jpeg");
    expect(metadata.width).toBe(PREVIEW_LIMITS.imageMaxEdge);
    expect(metadata.exif).toBeUndefined();
    expect(bytes.includes(Buffer.from(PICTURE_COMMENT))).toBe(false);

    // The picture counts against the folder and the account, like an upload.
    expect(folderContentSize(folder.id)).toBe(ready?.previewImageSize);
    expect(getUsage(user.id).totalStorageBytes).toBe(ready?.previewImageSize);
  });

  test("without the test-only setting, the loopback page server is refused", async () => {
    const { user, folder } = senderWithFolder();
    const item = createTextItem(user.id, folder.id, link(`${pages.origin}/article/refused`));
    const before = pages.requests.length;
    await runPreviewPass({ allowLoopback: false });
    expect(pages.requests.length).toBe(before);
    // Refused for good: asking again would get the same answer.
    expect(row(item.id)).toMatchObject({ previewStatus: "failed", previewAttempts: 1 });
    expect(row(item.id)?.previewImageKey).toBeNull();
  });

  test("a missing page (404) fails at once; the link stays plain", async () => {
    const { user, folder } = senderWithFolder();
    const item = createTextItem(user.id, folder.id, link(`${pages.origin}/missing`));
    await runPreviewPass(loopback);
    expect(row(item.id)).toMatchObject({ previewStatus: "failed", previewAttempts: 1 });
  });

  test("a page that keeps failing is tried three times, then the link stays plain", async () => {
    const { user, folder } = senderWithFolder();
    const item = createTextItem(user.id, folder.id, link(`${pages.origin}/broken`));
    for (let attempt = 1; attempt <= PREVIEW_LIMITS.maxAttempts; attempt++) {
      await runPreviewPass(loopback);
      expect(row(item.id)?.previewAttempts).toBe(attempt);
      // The retry's wait, passed.
      db.update(contentItems)
        .set({ previewNextAttemptAt: new Date(Date.now() - 1000) })
        .where(eq(contentItems.id, item.id))
        .run();
    }
    expect(row(item.id)?.previewStatus).toBe("failed");
  });

  test("a fetch cut short by a crash (its lease expired) is taken up again", async () => {
    const { user, folder } = senderWithFolder();
    const item = createTextItem(user.id, folder.id, link(`${pages.origin}/plain/crash`));
    db.update(contentItems)
      .set({ previewAttempts: 1, previewNextAttemptAt: new Date(Date.now() + 60_000) })
      .where(eq(contentItems.id, item.id))
      .run();
    await runPreviewPass(loopback);
    expect(row(item.id)?.previewStatus).toBe("pending");
    db.update(contentItems)
      .set({ previewNextAttemptAt: new Date(Date.now() - 1000) })
      .where(eq(contentItems.id, item.id))
      .run();
    await runPreviewPass(loopback);
    expect(row(item.id)).toMatchObject({
      previewStatus: "ready",
      previewTitle: "crash only",
      previewDescription: "Plain crash.",
      previewSiteName: "127.0.0.1",
      previewImageKey: null,
    });
  });

  test("an edit that changes the address fetches again; the sender can remove the picture, then the card", async () => {
    const { user, folder } = senderWithFolder();
    const item = createTextItem(user.id, folder.id, link(`${pages.origin}/article/one`));
    await runPreviewPass(loopback);
    updateTextItem(user.id, item.id, { ...link(`${pages.origin}/article/one`), title: "Renamed" });
    expect(row(item.id)?.previewStatus).toBe("ready");
    updateTextItem(user.id, item.id, link(`${pages.origin}/article/two`));
    expect(row(item.id)?.previewStatus).toBe("pending");
    await runPreviewPass(loopback);
    const ready = row(item.id);
    expect(ready?.previewTitle).toBe("two: the long read");

    const picture = ready?.previewImageKey as string;
    expect(await storage.stat(picture)).not.toBeNull();
    await removePreviewImage(user.id, item.id);
    // Released by the domain call itself: no caller has to remember.
    expect(await storage.stat(picture)).toBeNull();
    expect(row(item.id)).toMatchObject({
      previewStatus: "ready",
      previewImageKey: null,
      previewImageSize: 0,
    });
    expect(folderContentSize(folder.id)).toBe(0);
    await removePreview(user.id, item.id);
    expect(row(item.id)).toMatchObject({ previewStatus: "removed", previewTitle: null });
    // Removed stays removed: no pass fetches it again.
    await runPreviewPass(loopback);
    expect(row(item.id)?.previewStatus).toBe("removed");
  });

  test("another sender cannot remove a preview", async () => {
    const { user, folder } = senderWithFolder();
    const other = senderWithFolder();
    const item = createTextItem(user.id, folder.id, link(`${pages.origin}/article/mine`));
    await runPreviewPass(loopback);
    await expect(removePreview(other.user.id, item.id)).rejects.toThrowError();
    await expect(removePreviewImage(other.user.id, item.id)).rejects.toThrowError();
    expect(row(item.id)?.previewStatus).toBe("ready");
  });

  test("a deleted item's picture is among the files released", async () => {
    const { user, folder } = senderWithFolder();
    const item = createTextItem(user.id, folder.id, link(`${pages.origin}/article/gone`));
    await runPreviewPass(loopback);
    const key = row(item.id)?.previewImageKey;
    expect(key).toBeTruthy();
    expect((await deleteItem(user.id, item.id)).keys).toContain(key);
    expect(await storage.stat(key as string)).toBeNull();
  });

  test("a sender over their hourly number of previews waits; nothing is fetched", async () => {
    const { user, folder } = senderWithFolder();
    await consumeRateLimit(PREVIEWS_PER_USER, String(user.id), PREVIEWS_PER_USER.points);
    const item = createTextItem(user.id, folder.id, link(`${pages.origin}/article/limited`));
    const before = pages.requests.length;
    await runPreviewPass(loopback);
    expect(pages.requests.length).toBe(before);
    const waiting = row(item.id);
    expect(waiting).toMatchObject({ previewStatus: "pending", previewAttempts: 0 });
    expect(waiting?.previewNextAttemptAt?.getTime()).toBeGreaterThan(Date.now());
  });

  test("fetches at most a few at once, and at most two per host", async () => {
    const hosts = ["a.example", "a.example", "a.example", "a.example", "b.example", "c.example"];
    const running = new Map<string, number>();
    let most = 0;
    let mostPerHost = 0;
    await inParallel(
      hosts.map((host, index) => ({ previewUrl: `https://${host}/${index}` })),
      async ({ previewUrl }) => {
        const host = new URL(previewUrl).hostname;
        running.set(host, (running.get(host) ?? 0) + 1);
        most = Math.max(
          most,
          [...running.values()].reduce((sum, n) => sum + n, 0),
        );
        mostPerHost = Math.max(mostPerHost, running.get(host) ?? 0);
        await new Promise((resolve) => setTimeout(resolve, 20));
        running.set(host, (running.get(host) ?? 1) - 1);
      },
    );
    expect(most).toBeLessThanOrEqual(PREVIEW_LIMITS.concurrency);
    expect(mostPerHost).toBe(PREVIEW_LIMITS.perHostConcurrency);
  });

  test("reads Open Graph, then Twitter, then plain HTML", async () => {
    const twitter = await readPreview(
      `<html><head><meta name="twitter:title" content="Bird"><meta name="twitter:description" content="Tweet"><meta name="twitter:image" content="https://cdn.example.com/b.png"></head></html>`,
      "https://www.example.com/post",
    );
    expect(twitter).toEqual({
      title: "Bird",
      description: "Tweet",
      siteName: "example.com",
      imageUrl: "https://cdn.example.com/b.png",
    });
    const plain = await readPreview(
      `<html><head><title>Just a title</title></head></html>`,
      "https://example.org/",
    );
    expect(plain).toMatchObject({ title: "Just a title", imageUrl: null });
  });
});
