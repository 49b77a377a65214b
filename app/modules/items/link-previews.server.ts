import { Readable } from "node:stream";
import { and, asc, eq, isNull, lte, or } from "drizzle-orm";
import { contentItems, folders } from "#db/schema";
import { releaseFiles } from "~/modules/files/stored-files.server";
import { LIMITS } from "~/modules/plans/limits";
import { db, writeTransaction } from "~/platform/db.server";
import { env } from "~/platform/env.server";
import { consumeRateLimit, type RateLimit } from "~/platform/rate-limit.server";
import { SafeFetchError, type SafeFetchOptions, safeFetch } from "~/platform/safe-fetch.server";
import {
  decodeCeilingBytes,
  decodeOutputBytes,
  loadSharp,
  sharpDecodeCost,
  withDecodeRoom,
} from "~/platform/sharp.server";
import { storage } from "~/platform/storage.server";
import {
  assertFits,
  getItem,
  ItemNotFoundError,
  ItemRuleError,
  QuotaExceededError,
} from "./item-rules.server";
import { withoutSiteName } from "./item-titles";
import { previewColumnsFor } from "./link-preview-columns";
import { openGraphScraper } from "./open-graph.server";
/**
 * Link previews: the card (picture, title, site, a line of description) a
 * saved link gets in the folder and in the e-mail. Saving a link marks its
 * preview pending (`previewColumnsFor`, called by the one function every way
 * of saving a link goes through) and asks for a pass; the pass fetches in the
 * background, so saving never waits. The state lives on the item's row: a
 * crash mid-fetch leaves it pending with a short lease, and the scheduler's
 * minute pass picks it up again. Rules and limits:
 * docs/decisions/0063-link-previews.md.
 */
export const PREVIEW_LIMITS = {
  htmlMaxBytes: 1024 * 1024,
  imageMaxBytes: 5 * 1024 * 1024,
  timeoutMs: 10_000,
  maxRedirects: 5,
  maxAttempts: 3,
  /** A fetch holds its item this long; a crash's claim expires after it. */
  leaseMs: 2 * 60_000,
  /** Wait before the second and third attempt. */
  retryDelaysMs: [60_000, 10 * 60_000],
  /** Items one pass takes on; the rest wait for the next. */
  perPass: 20,
  concurrency: 4,
  perHostConcurrency: 2,
  imageMaxEdge: 600,
  titleMaxLength: 200,
  descriptionMaxLength: 300,
  siteNameMaxLength: 80,
} as const;

/** A throwaway account saving link after link cannot make us fetch without end. */
export const PREVIEWS_PER_USER: RateLimit = {
  name: "link-preview-user",
  points: 60,
  durationSeconds: 60 * 60,
};

type PreviewText = { title: string | null; description: string | null; siteName: string };

const clip = (value: string | undefined, max: number) => {
  const text = value?.replace(/\s+/g, " ").trim();
  if (!text) return null;
  const characters = [...text];
  return characters.length > max ? `${characters.slice(0, max - 1).join("")}…` : text;
};

/** Title, description, site name and picture address from a page's HTML (Open Graph, Twitter, then plain HTML). */
export async function readPreview(html: string, pageUrl: string) {
  const scrape = await openGraphScraper();
  const { result } = await scrape({ html, onlyGetOpenGraphInfo: false });
  const host = new URL(pageUrl).hostname.replace(/^www\./, "");
  const imageAddress = result.ogImage?.[0]?.url ?? result.twitterImage?.[0]?.url;
  let imageUrl: string | null = null;
  if (imageAddress) {
    try {
      imageUrl = new URL(imageAddress, pageUrl).toString();
    } catch {
      imageUrl = null;
    }
  }
  const text: PreviewText = {
    title: clip(
      result.ogTitle ?? result.twitterTitle ?? result.dcTitle,
      PREVIEW_LIMITS.titleMaxLength,
    ),
    description: clip(
      result.ogDescription ?? result.twitterDescription ?? result.dcDescription,
      PREVIEW_LIMITS.descriptionMaxLength,
    ),
    siteName: clip(result.ogSiteName ?? host, PREVIEW_LIMITS.siteNameMaxLength) ?? host,
  };
  return { ...text, imageUrl };
}

function fetchOptions(
  accept: string,
  maxBytes: number,
  allowLoopback: boolean,
  timeoutMs: number = PREVIEW_LIMITS.timeoutMs,
): SafeFetchOptions {
  return {
    accept,
    maxBytes,
    timeoutMs,
    maxRedirects: PREVIEW_LIMITS.maxRedirects,
    allowLoopback,
  };
}

/**
 * A link saved without a title waits at most this long for its page's own
 * (docs/decisions/0134-quick-saves-wait-for-a-note.md): the save is answered
 * either way, with the site's name when the page is slow.
 */
export const TITLE_FETCH_TIMEOUT_MS = 3000;

/** The page's title, fetched while saving (the preview's reader, with a short timeout), or null. */
export async function fetchPageTitle(
  url: string,
  options: { allowLoopback?: boolean; timeoutMs?: number } = {},
) {
  const allowLoopback = options.allowLoopback ?? env.LINK_PREVIEW_ALLOW_LOOPBACK;
  try {
    const page = await safeFetch(
      url,
      fetchOptions(
        "text/html,application/xhtml+xml",
        PREVIEW_LIMITS.htmlMaxBytes,
        allowLoopback,
        options.timeoutMs ?? TITLE_FETCH_TIMEOUT_MS,
      ),
    );
    if (!/html/i.test(page.contentType)) return null;
    const preview = await readPreview(page.body.toString("utf8"), page.url);
    return preview.title && withoutSiteName(preview.title, page.url, preview.siteName);
  } catch (error) {
    console.info(`[previews] no title from ${new URL(url).host}: ${(error as Error).message}`);
    return null;
  }
}

/** The picture resized to fit the card and re-encoded (which drops its metadata), or null. */
async function fetchPreviewImage(imageUrl: string, allowLoopback: boolean) {
  try {
    const { body } = await safeFetch(
      imageUrl,
      fetchOptions("image/*", PREVIEW_LIMITS.imageMaxBytes, allowLoopback),
    );
    const sharp = await loadSharp();
    const options = { failOn: "error", limitInputPixels: LIMITS.photo.maxPixels } as const;
    // Judged from its header as a photo is, then decoded in the decode lane, its estimate charged.
    const metadata = await sharp(body, options).metadata();
    const estimate =
      (metadata.width ?? 0) * (metadata.height ?? 0) * sharpDecodeCost(metadata).bytesPerPixel +
      decodeOutputBytes(PREVIEW_LIMITS.imageMaxEdge) +
      body.length;
    if (estimate > decodeCeilingBytes()) throw new Error("too many pixels to decode");
    return await withDecodeRoom("a link preview's picture", async (room) => {
      await room.charge(estimate);
      return sharp(body, options)
        .rotate()
        .resize({
          width: PREVIEW_LIMITS.imageMaxEdge,
          height: PREVIEW_LIMITS.imageMaxEdge,
          fit: "inside",
          withoutEnlargement: true,
        })
        .flatten({ background: "#ffffff" })
        .jpeg({ quality: 75, mozjpeg: true })
        .toBuffer();
    });
  } catch (error) {
    // The host only: a page's addresses may carry tokens that have no place in our logs.
    console.info(
      `[previews] no picture from ${new URL(imageUrl).host}: ${(error as Error).message}`,
    );
    return null;
  }
}

type Candidate = { id: number; userId: number; folderId: number; previewUrl: string };

function dueCandidates(now: Date): Candidate[] {
  return db
    .select({
      id: contentItems.id,
      userId: folders.userId,
      folderId: contentItems.folderId,
      previewUrl: contentItems.previewUrl,
    })
    .from(contentItems)
    .innerJoin(folders, eq(folders.id, contentItems.folderId))
    .where(
      and(
        eq(contentItems.previewStatus, "pending"),
        isNull(contentItems.sentAt),
        or(isNull(contentItems.previewNextAttemptAt), lte(contentItems.previewNextAttemptAt, now)),
      ),
    )
    .orderBy(asc(contentItems.id))
    .limit(PREVIEW_LIMITS.perPass)
    .all()
    .filter((row): row is Candidate => row.previewUrl !== null);
}

/** Takes the item for one attempt (a lease), unless another pass already has it. */
function claim(candidate: Candidate, now: Date) {
  const item = db
    .select({ attempts: contentItems.previewAttempts })
    .from(contentItems)
    .where(eq(contentItems.id, candidate.id))
    .get();
  if (!item) return null;
  const attempts = item.attempts + 1;
  const taken = db
    .update(contentItems)
    .set({
      previewAttempts: attempts,
      previewNextAttemptAt: new Date(now.getTime() + PREVIEW_LIMITS.leaseMs),
    })
    .where(
      and(
        eq(contentItems.id, candidate.id),
        eq(contentItems.previewStatus, "pending"),
        eq(contentItems.previewUrl, candidate.previewUrl),
        or(isNull(contentItems.previewNextAttemptAt), lte(contentItems.previewNextAttemptAt, now)),
      ),
    )
    .run().changes;
  return taken === 1 ? attempts : null;
}

/** Still the same pending preview (not edited, removed, sent or deleted meanwhile). */
const stillWanted = (candidate: Candidate) =>
  and(
    eq(contentItems.id, candidate.id),
    eq(contentItems.previewStatus, "pending"),
    eq(contentItems.previewUrl, candidate.previewUrl),
    isNull(contentItems.sentAt),
  );

/** A refused address or a 4xx answer fails at once; anything else is tried again later. */
function giveUpOrRetry(candidate: Candidate, attempts: number, now: Date, error: unknown) {
  const delay = PREVIEW_LIMITS.retryDelaysMs[attempts - 1];
  const permanent = error instanceof SafeFetchError && error.permanent;
  db.update(contentItems)
    .set(
      permanent || attempts >= PREVIEW_LIMITS.maxAttempts || delay === undefined
        ? { previewStatus: "failed", previewNextAttemptAt: null }
        : { previewNextAttemptAt: new Date(now.getTime() + delay) },
    )
    .where(stillWanted(candidate))
    .run();
}

/** Whether `bytes` more still fit the folder and the account, as for an upload. */
function fits(candidate: Candidate, bytes: number) {
  try {
    const { folder } = getItem(candidate.userId, candidate.id);
    assertFits(candidate.userId, folder, bytes);
    return true;
  } catch (error) {
    if (error instanceof QuotaExceededError || error instanceof ItemNotFoundError) return false;
    throw error;
  }
}

async function fetchOne(candidate: Candidate, allowLoopback: boolean) {
  const attempts = claim(candidate, new Date());
  if (attempts === null) return;
  let preview: PreviewText;
  let image: Buffer | null = null;
  try {
    const page = await safeFetch(
      candidate.previewUrl,
      fetchOptions("text/html,application/xhtml+xml", PREVIEW_LIMITS.htmlMaxBytes, allowLoopback),
    );
    if (!/html/i.test(page.contentType)) throw new Error(`Not a page: ${page.contentType}`);
    const read = await readPreview(page.body.toString("utf8"), page.url);
    if (!read.title && !read.description && !read.imageUrl) {
      throw new Error("The page describes nothing");
    }
    preview = read;
    if (read.imageUrl) image = await fetchPreviewImage(read.imageUrl, allowLoopback);
  } catch (error) {
    console.info(`[previews] item ${candidate.id}: ${(error as Error).message}`);
    giveUpOrRetry(candidate, attempts, new Date(), error);
    return;
  }
  const stored =
    image && fits(candidate, image.length) ? await storage.put(Readable.from([image])) : null;
  const keepsImage = writeTransaction((tx) => {
    // Checked again inside the write: an upload may have filled the folder meanwhile.
    const withImage = stored !== null && fits(candidate, stored.size);
    const written = tx
      .update(contentItems)
      .set(readyColumns(preview, withImage ? stored : null))
      .where(stillWanted(candidate))
      .run().changes;
    return withImage && written === 1;
  });
  if (stored && !keepsImage) await storage.delete(stored.key);
}

function readyColumns(preview: PreviewText, stored: { key: string; size: number } | null) {
  return {
    previewStatus: "ready" as const,
    previewTitle: preview.title,
    previewDescription: preview.description,
    previewSiteName: preview.siteName,
    previewImageKey: stored?.key ?? null,
    previewImageSize: stored?.size ?? 0,
    previewNextAttemptAt: null,
  };
}

/** Runs `task` for each candidate, at most `concurrency` at once and `perHostConcurrency` per host. */
export async function inParallel<T extends { previewUrl: string }>(
  candidates: T[],
  task: (candidate: T) => Promise<void>,
) {
  const perHost = new Map<string, number>();
  const waiting = [...candidates];
  const hostOf = (candidate: T) => new URL(candidate.previewUrl).hostname;
  const worker = async () => {
    for (;;) {
      const index = waiting.findIndex(
        (candidate) => (perHost.get(hostOf(candidate)) ?? 0) < PREVIEW_LIMITS.perHostConcurrency,
      );
      if (index === -1) return;
      const [candidate] = waiting.splice(index, 1) as [T];
      const host = hostOf(candidate);
      perHost.set(host, (perHost.get(host) ?? 0) + 1);
      try {
        await task(candidate);
      } finally {
        perHost.set(host, (perHost.get(host) ?? 1) - 1);
      }
    }
  };
  await Promise.all(Array.from({ length: PREVIEW_LIMITS.concurrency }, worker));
}

/**
 * Fetches the previews that are due. A user over their hourly number waits
 * (their items stay pending until the window passes). Items left behind by
 * the per-host limit are taken by the next round of this pass.
 */
export async function runPreviewPass(options: { allowLoopback?: boolean } = {}): Promise<number> {
  const allowLoopback = options.allowLoopback ?? env.LINK_PREVIEW_ALLOW_LOOPBACK;
  let done = 0;
  for (let round = 0; round < 5; round++) {
    const now = new Date();
    const due: Candidate[] = [];
    for (const candidate of dueCandidates(now)) {
      const verdict = await consumeRateLimit(PREVIEWS_PER_USER, String(candidate.userId));
      if (verdict.allowed) {
        due.push(candidate);
      } else {
        db.update(contentItems)
          .set({
            previewNextAttemptAt: new Date(now.getTime() + verdict.retryAfterSeconds * 1000),
          })
          .where(eq(contentItems.id, candidate.id))
          .run();
      }
    }
    if (due.length === 0) break;
    await inParallel(due, (candidate) => fetchOne(candidate, allowLoopback));
    done += due.length;
  }
  return done;
}

/** The sender takes the picture off the card; its stored file is released. */
export async function removePreviewImage(userId: number, itemId: number) {
  const key = writeTransaction((tx) => {
    const { item } = getItem(userId, itemId);
    if (item.type !== "link" || !item.previewImageKey)
      throw new ItemRuleError("No picture to remove.");
    tx.update(contentItems)
      .set({ previewImageKey: null, previewImageSize: 0 })
      .where(eq(contentItems.id, item.id))
      .run();
    return item.previewImageKey;
  });
  await releaseFiles([key]);
}

/** The sender takes the whole card off: the link is sent plain, and its picture is released. */
export async function removePreview(userId: number, itemId: number) {
  const key = writeTransaction((tx) => {
    const { item } = getItem(userId, itemId);
    if (item.type !== "link" || item.previewStatus === null) {
      throw new ItemRuleError("No preview to remove.");
    }
    tx.update(contentItems)
      .set({ ...previewColumnsFor([]), previewStatus: "removed", previewUrl: item.previewUrl })
      .where(eq(contentItems.id, item.id))
      .run();
    return item.previewImageKey;
  });
  if (key) await releaseFiles([key]);
}
