import fs from "node:fs";
import path from "node:path";
import { and, asc, eq, isNull, lte, notInArray, or, sql } from "drizzle-orm";
import { contentItems, folders, users } from "#db/schema";
import { releaseFiles } from "~/modules/files/stored-files.server";
import {
  type PreparedVideo,
  prepareVideo,
  VideoRejectedError,
} from "~/modules/files/video-processing.server";
import { LIMITS } from "~/modules/plans/limits";
import { isPremium } from "~/modules/plans/quota.server";
import { db, writeTransaction } from "~/platform/db.server";
import { holdWork, workHeldByLivingProcesses } from "~/platform/process-folder.server";
import { type SpooledFile, spoolToFile } from "~/platform/spool.server";
import { storage } from "~/platform/storage.server";

/**
 * Videos prepared in the background (docs/decisions/0205-videos-transcoded-by-ffmpeg.md).
 * A saved video item holds the clip as uploaded as its one file, with
 * `videoStatus` "preparing"; a pass takes each such item in turn (a lease on
 * its row), copies the clip from storage to a spooled file, has ffmpeg make
 * the MP4 and the poster, stores both and, in one write, puts them in the
 * clip's place and marks the item ready; the clip as uploaded is then
 * released. A refusal marks the item failed with its message and releases
 * the clip: nothing is left on disk. A crash leaves the item preparing; its
 * lease runs out and a later pass starts it again, or the next start does at
 * once unless a process that still lives has it in hand.
 */

export const VIDEO_PREPARATION = {
  /** Longer than the longest clip's deadline (ten times five minutes, and a minute). */
  leaseMs: 70 * 60_000,
  maxAttempts: 3,
  /** Wait before the second and third attempt, after a fault that is not the clip's. */
  retryDelaysMs: [60_000, 10 * 60_000],
  /** Items one pass takes on; the rest wait for the next. */
  perPass: 10,
  /** Progress is written to the row at most this often (percent). */
  progressStep: 5,
} as const;

/** What a pass marks as in hand in its process's folder, by the item's id. */
const HELD_AS = "video-items";

export const VIDEO_FAILED_MESSAGE =
  "This video could not be prepared. Please try uploading it again.";

type Candidate = {
  id: number;
  sourceKey: string;
  fileName: string;
  premium: boolean;
};

function candidates(now: Date): Candidate[] {
  return db
    .select({
      id: contentItems.id,
      filePaths: contentItems.filePaths,
      fileNames: contentItems.fileNames,
      subscriptionTier: users.subscriptionTier,
      subscriptionStatus: users.subscriptionStatus,
    })
    .from(contentItems)
    .innerJoin(folders, eq(folders.id, contentItems.folderId))
    .innerJoin(users, eq(users.id, folders.userId))
    .where(
      and(
        eq(contentItems.videoStatus, "preparing"),
        isNull(contentItems.sentAt),
        or(isNull(contentItems.videoNextAttemptAt), lte(contentItems.videoNextAttemptAt, now)),
      ),
    )
    .orderBy(asc(contentItems.id))
    .limit(VIDEO_PREPARATION.perPass)
    .all()
    .flatMap((row) =>
      row.filePaths[0]
        ? [
            {
              id: row.id,
              sourceKey: row.filePaths[0],
              fileName: row.fileNames[0] ?? "video",
              premium: isPremium(row),
            },
          ]
        : [],
    );
}

/** Still the same clip waiting to be prepared (not replaced, sent or deleted meanwhile). */
const stillWanted = (candidate: Candidate) =>
  and(
    eq(contentItems.id, candidate.id),
    eq(contentItems.videoStatus, "preparing"),
    isNull(contentItems.sentAt),
    sql`json_extract(${contentItems.filePaths}, '$[0]') = ${candidate.sourceKey}`,
  );

/** Takes the item for one attempt (a lease), unless another pass already has it; the attempt's number. */
function claim(candidate: Candidate, now: Date) {
  const row = db
    .select({ attempts: contentItems.videoAttempts })
    .from(contentItems)
    .where(eq(contentItems.id, candidate.id))
    .get();
  if (!row) return null;
  const attempts = row.attempts + 1;
  const taken = db
    .update(contentItems)
    .set({
      videoAttempts: attempts,
      videoNextAttemptAt: new Date(now.getTime() + VIDEO_PREPARATION.leaseMs),
    })
    .where(
      and(
        stillWanted(candidate),
        or(isNull(contentItems.videoNextAttemptAt), lte(contentItems.videoNextAttemptAt, now)),
      ),
    )
    .run().changes;
  return taken === 1 ? attempts : null;
}

/** The item keeps its name and the message; the clip as uploaded is released. */
async function fail(candidate: Candidate, message: string) {
  const written = db
    .update(contentItems)
    .set({
      videoStatus: "failed",
      videoError: message,
      videoProgress: 0,
      videoNextAttemptAt: null,
      filePaths: [],
      fileSizes: [],
      mimeTypes: [],
      thumbnailPaths: [],
    })
    .where(stillWanted(candidate))
    .run().changes;
  if (written === 1) await releaseFiles([candidate.sourceKey]);
}

/** A fault that is not the clip's (storage, a timeout, the lane) is tried again, up to maxAttempts. */
async function failOrRetry(candidate: Candidate, attempts: number, error: unknown) {
  const delay = VIDEO_PREPARATION.retryDelaysMs[attempts - 1];
  if (error instanceof VideoRejectedError) return fail(candidate, error.message);
  console.error(`[videos] item ${candidate.id}, attempt ${attempts}`, error);
  if (attempts >= VIDEO_PREPARATION.maxAttempts || delay === undefined) {
    return fail(candidate, VIDEO_FAILED_MESSAGE);
  }
  db.update(contentItems)
    .set({ videoProgress: 0, videoNextAttemptAt: new Date(Date.now() + delay) })
    .where(stillWanted(candidate))
    .run();
}

const mp4Name = (name: string) => `${path.parse(name).name || "video"}.mp4`;

async function prepareOne(candidate: Candidate) {
  const attempts = claim(candidate, new Date());
  if (attempts === null) return;
  // The lease says "taken" to every pass; this says "taken by a process that lives" to the next start.
  const release = holdWork(HELD_AS, candidate.id);
  let spooled: SpooledFile | null = null;
  let prepared: PreparedVideo | null = null;
  const stored: string[] = [];
  try {
    const source = await storage.get(candidate.sourceKey);
    if (!source) throw new Error(`The clip ${candidate.sourceKey} is not in storage`);
    spooled = await spoolToFile(source, { maxBytes: LIMITS.video.maxUploadBytes });
    let written = 0;
    prepared = await prepareVideo(spooled.path, {
      maxSeconds: candidate.premium ? LIMITS.video.maxSecondsPremium : LIMITS.video.maxSecondsFree,
      onProgress: (share) => {
        const percent = Math.floor(share * 100);
        if (percent < written + VIDEO_PREPARATION.progressStep || percent >= 100) return;
        written = percent;
        db.update(contentItems).set({ videoProgress: percent }).where(stillWanted(candidate)).run();
      },
    });
    const video = await storage.put(fs.createReadStream(prepared.videoPath));
    stored.push(video.key);
    const poster = await storage.put(fs.createReadStream(prepared.posterPath));
    stored.push(poster.key);
    const durationMs = Math.round(prepared.durationSeconds * 1000);
    const taken = writeTransaction(
      (tx) =>
        tx
          .update(contentItems)
          .set({
            videoStatus: "ready",
            videoProgress: 100,
            videoError: null,
            videoNextAttemptAt: null,
            videoDurationMs: durationMs,
            filePaths: [video.key],
            fileNames: [mp4Name(candidate.fileName)],
            fileSizes: [video.size],
            mimeTypes: ["video/mp4"],
            thumbnailPaths: [poster.key],
          })
          .where(stillWanted(candidate))
          .run().changes === 1,
    );
    if (taken) {
      stored.length = 0;
      await releaseFiles([candidate.sourceKey]);
    }
  } catch (error) {
    await failOrRetry(candidate, attempts, error);
  } finally {
    // Prepared but not taken (the item went meanwhile), or a fault: nothing of ours stays.
    await Promise.all(stored.map((key) => storage.delete(key)));
    await prepared?.remove();
    await spooled?.remove();
    release();
  }
}

/** Prepares the videos waiting (one at a time: the transcodes share one lane anyway). */
export async function runVideoPass(now = new Date()) {
  for (const candidate of candidates(now)) await prepareOne(candidate);
}

/**
 * At start: a lease still running belongs to a process that is gone (one
 * primary runs the passes, and its transcodes die with it), so its video is
 * taken again now, not when the lease would have run out; unless a process
 * of this machine that still lives has it in hand (a server still finishing
 * its work beside the new one), whose lease stands.
 */
export function resumeInterruptedVideos() {
  const held = [...workHeldByLivingProcesses(HELD_AS)].map(Number);
  return db
    .update(contentItems)
    .set({ videoNextAttemptAt: null })
    .where(
      and(
        eq(contentItems.videoStatus, "preparing"),
        isNull(contentItems.sentAt),
        notInArray(contentItems.id, held),
      ),
    )
    .run().changes;
}
