/**
 * Every product limit in one place (docs/product-rules.md, "Tiers and limits").
 * Used by the browser (form hints, usage bars) and by the server (the checks
 * that count), so the two can never disagree.
 */
const MB = 1024 * 1024;

export const LIMITS = {
  free: {
    maxFolders: 5,
    maxStorageBytes: 50 * MB,
    frequencies: ["weekly", "monthly"],
  },
  premium: {
    maxFolders: Number.POSITIVE_INFINITY,
    maxStorageBytes: Number.POSITIVE_INFINITY,
    frequencies: ["daily", "weekly", "biweekly", "monthly"],
  },
  folder: {
    maxSizeBytes: 20 * MB,
    icloudMaxSizeBytes: 10 * MB,
    icloudDomains: ["icloud.com", "me.com", "mac.com"],
    maxRecipients: 5,
    nameMaxLength: 30,
    nameInputMaxLength: 35,
    recipientNameMaxLength: 30,
  },
  item: {
    maxFileBytes: 10 * MB,
    maxPhotos: 3,
    maxFiles: 5,
    maxLinks: 5,
    urlMaxLength: 2048,
    titleMaxLength: 200,
    textMaxLength: 1000,
    pageSize: 50,
  },
  /**
   * Photos (docs/decisions/0238-photo-decodes-in-the-budget.md): the most pixels one may have,
   * read from its header before anything is decoded. 8192 × 6144 (50 megapixels) takes every
   * phone's full-resolution photo: the iPhone's 48 MP (8064 × 6048), the Pixel's and Galaxy's 50
   * MP (8160 × 6144). Not a Galaxy Ultra's 200 MP mode (16320 × 12240), which phones save only
   * when asked: four times the memory to decode, for a photo shown at 1600 px.
   */
  photo: {
    maxPixels: 8192 * 6144,
  },
  /**
   * Videos (docs/decisions/0204-videos-are-their-own-item.md): one clip an item. The clip
   * as uploaded may be large; what is stored (the 720p MP4 and its poster) counts in storage.
   */
  video: {
    maxUploadBytes: 200 * MB,
    maxSecondsFree: 60,
    maxSecondsPremium: 5 * 60,
    /** Wider or taller than this is not a phone's or a camera's clip (8K is 7680 by 4320). */
    maxPixelsWide: 8192,
    /**
     * Pixels in one frame: 4K, a little wider than a phone's 3840 by 2160 (DCI's 4096 by 2160 and
     * 4096 by 2304 fit). Decoding holds several frames at once: a 4K HDR iPhone clip's transcode
     * peaks near 400 MB, an 8K one's past 900 MB, more than the 512 MB machine has
     * (docs/decisions/0237-media-work-bounded-and-children-die-with-the-server.md).
     */
    maxPixelsPerFrame: 4096 * 2304,
    /**
     * The work of decoding a clip (width x height x frames) may be at most this many pixels a
     * second of the sender's length limit: 4K at 120 frames a second (an iPhone Pro's fastest 4K)
     * for its whole length; a phone's 240-frame slow motion is 1080p, half of it.
     */
    maxPixelsPerSecond: 3840 * 2160 * 120,
    /**
     * Tracks ffprobe reads (each costs it about 1.5 MB): a phone's clip has two to nine (picture,
     * sound, metadata), a camera's a few more; more is not a clip.
     */
    maxStreams: 16,
    /** A phone's clip has one sound track, a camera's up to four; more is not a clip. */
    maxAudioTracks: 4,
    /** The stored clip: at most 720p (the short side), the long side at most 1280. */
    storedShortSide: 720,
    storedLongSide: 1280,
    storedMaxFps: 30,
  },
  multiFolder: {
    maxFolders: 10,
  },
  referral: {
    bonusFoldersEach: 1,
    bonusStorageBytesEach: 10 * MB,
    maxBonusFolders: 5,
    maxBonusStorageBytes: 50 * MB,
    codeMaxLength: 10,
  },
  profile: {
    nameMaxLength: 50,
  },
  password: {
    minLength: 8,
  },
  /** Stripe's events are a few kilobytes; anything far bigger is not from Stripe. */
  webhookMaxBodyBytes: 1 * MB,
  /** An unsubscribe e-mail is a subject and an empty body; 1 MB leaves room for a signature's images. */
  inboundEmailMaxBodyBytes: 1 * MB,
  /** Saving by e-mail (docs/decisions/0158-save-by-email.md). */
  saveByEmail: {
    /** What the large mail services let one send: a full item's photos, base64-encoded, fit. */
    maxMessageBytes: 25 * MB,
    /** MIME parts in one message, counted as they stream past: a forward with its photos and files fits. */
    maxParts: 40,
    /**
     * The bytes of a message's text and HTML parts together: a long newsletter fits many times
     * over; parsing holds many times this (docs/decisions/0178-smtp-mail-spooled-and-parsed-under-the-memory-budget.md).
     */
    maxTextBytes: 1 * MB,
    /** A message's header section (docs/decisions/0170-save-by-email-header-bound.md). */
    maxHeaderBytes: 64 * 1024,
    /** Messages one folder's address saves in an hour; more are dropped unanswered. */
    savesPerFolderPerHour: 30,
  },
  /** Recipients' hearts and notes (docs/decisions/0159-recipients-answer-back.md). */
  answers: {
    /** A note back is a line or a short paragraph, like an item's own text. */
    noteMaxLength: 1000,
    /** Notes one recipient may write about one issue (all its items together). */
    notesPerRecipientPerIssue: 10,
    /** Notes one issue may gather from all its recipients together. */
    notesPerIssue: 30,
    /** Notes one sender may receive in 24 hours, across every folder. */
    notesPerSenderPerDay: 100,
  },
  usageWarningRatio: 0.8,
} as const;

export type Frequency = (typeof LIMITS.premium.frequencies)[number];

/**
 * What one Premium subscription brings in a month, in cents, for the admin
 * dashboard's revenue figure (premium users × this price). Keep it equal to
 * the Stripe price behind STRIPE_PRICE_ID.
 */
export const PREMIUM_MONTHLY_PRICE_CENTS = 499;

/**
 * The sent archive (docs/decisions/0064-sent-archive.md): a sent issue's text is
 * kept until its sender deletes it, its folder or the account; its photos and
 * files for this many days after the send (then the archive names them only).
 * Archived files do not count against storage.
 */
export const ARCHIVE_FILE_RETENTION_DAYS = 30;

/** Sent issues per page of a folder's "Sent" view. */
export const SENT_ISSUES_PER_PAGE = 10;

/**
 * Delivery analytics (docs/decisions/0069-delivery-analytics.md): the user agent
 * of the last open is forgotten this many days after the send; the counts stay
 * with the issue.
 */
export const ANALYTICS_DETAIL_RETENTION_DAYS = 90;

/** The day before which a sent item's files are no longer kept for the archive. */
export function archiveFileCutoff(now: Date) {
  return new Date(now.getTime() - ARCHIVE_FILE_RETENTION_DAYS * 86_400_000);
}
