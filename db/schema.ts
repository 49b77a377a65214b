import crypto from "node:crypto";
import { sql } from "drizzle-orm";
import {
  blob,
  index,
  integer,
  primaryKey,
  real,
  sqliteTable,
  text,
  uniqueIndex,
} from "drizzle-orm/sqlite-core";

/**
 * Every stored record of the product plus what its rules add
 * (docs/product-rules.md, "Stored records"): the user's time zone, per-folder recipient state
 * and the send ledger that makes each scheduled send happen exactly once.
 *
 * Times are stored as Unix milliseconds (UTC). Lists and objects are JSON text.
 */
const createdAt = () =>
  integer("created_at", { mode: "timestamp_ms" })
    .notNull()
    .default(sql`(cast(unixepoch('subsec') * 1000 as integer))`);
const updatedAt = () =>
  integer("updated_at", { mode: "timestamp_ms" })
    .notNull()
    .default(sql`(cast(unixepoch('subsec') * 1000 as integer))`)
    .$onUpdate(() => new Date());
const timestamp = (name: string) => integer(name, { mode: "timestamp_ms" });
const flag = (name: string) => integer(name, { mode: "boolean" }).notNull().default(false);

export type Recipient = { name: string; email: string };
export type ContentBreakdown = { links: number; photos: number; files: number; musings: number };

export const users = sqliteTable("users", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  email: text("email").notNull().unique(),
  firstName: text("first_name"),
  lastName: text("last_name"),
  profileImageUrl: text("profile_image_url"),
  authProvider: text("auth_provider").notNull().default("password"),
  authProviderId: text("auth_provider_id"),
  passwordHash: text("password_hash"),
  emailVerified: flag("email_verified"),
  emailVerificationToken: text("email_verification_token"),
  emailVerificationExpiresAt: timestamp("email_verification_expires_at"),
  passwordResetToken: text("password_reset_token"),
  passwordResetExpiresAt: timestamp("password_reset_expires_at"),
  timeZone: text("time_zone").notNull().default("UTC"),
  subscriptionTier: text("subscription_tier", { enum: ["free", "premium"] })
    .notNull()
    .default("free"),
  stripeCustomerId: text("stripe_customer_id"),
  stripeSubscriptionId: text("stripe_subscription_id"),
  subscriptionStatus: text("subscription_status").notNull().default("inactive"),
  subscriptionExpiresAt: timestamp("subscription_expires_at"),
  /**
   * Changes whenever the account's credentials are reset: marks bound to it
   * ("trust this device") end with it (docs/product-rules.md, "Credentials").
   */
  securityStamp: text("security_stamp").notNull().default(""),
  /**
   * The sender's mail harmed delivery for everyone (bounce or complaint rate
   * over its limit): nothing of theirs is sent until an admin lifts it
   * (docs/product-rules.md, "Deliverability").
   */
  sendingPausedAt: timestamp("sending_paused_at"),
  sendingPausedReason: text("sending_paused_reason"),
  /** When the sender last opened the Save tab: answers after it count as new on the dashboard. */
  answersSeenAt: timestamp("answers_seen_at"),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
});

export const sessions = sqliteTable(
  "sessions",
  {
    sid: text("sid").primaryKey(),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    sess: text("sess", { mode: "json" }).$type<Record<string, unknown>>().notNull().default({}),
    expire: timestamp("expire").notNull(),
    ipAddress: text("ip_address"),
    userAgent: text("user_agent"),
    /** How this session was signed in; null for sessions from before it was recorded. */
    signInMethod: text("sign_in_method", {
      enum: ["password", "oauth", "email-link", "totp", "recovery-code", "passkey"],
    }),
    /** When, and by what, the owner last proved who they are again on this session. */
    reauthenticatedAt: timestamp("reauthenticated_at"),
    reauthenticatedBy: text("reauthenticated_by", {
      enum: ["password", "totp", "recovery-code", "passkey", "email"],
    }),
    createdAt: createdAt(),
  },
  (table) => [
    index("sessions_user_idx").on(table.userId),
    index("sessions_expire_idx").on(table.expire),
  ],
);

export const userRoles = sqliteTable(
  "user_roles",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    role: text("role", { enum: ["admin", "user"] }).notNull(),
    grantedBy: integer("granted_by").references(() => users.id, { onDelete: "set null" }),
    grantedAt: integer("granted_at", { mode: "timestamp_ms" })
      .notNull()
      .default(sql`(cast(unixepoch('subsec') * 1000 as integer))`),
    revokedBy: integer("revoked_by").references(() => users.id, { onDelete: "set null" }),
    revokedAt: timestamp("revoked_at"),
    isActive: integer("is_active", { mode: "boolean" }).notNull().default(true),
    grantReason: text("grant_reason"),
    revokeReason: text("revoke_reason"),
    metadata: text("metadata", { mode: "json" }).$type<Record<string, unknown>>(),
  },
  (table) => [index("user_roles_user_idx").on(table.userId, table.isActive)],
);

export const securityEvents = sqliteTable(
  "security_events",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    eventType: text("event_type", {
      enum: [
        "failed_login",
        "rate_limit_exceeded",
        "admin_access",
        "password_reset",
        "suspicious_activity",
        "unauthorized_access",
        "two_factor_enrolled",
        "two_factor_disabled",
        "two_factor_failed",
        "recovery_code_used",
        "inbound_mail_refused",
      ],
    }).notNull(),
    userId: integer("user_id").references(() => users.id, { onDelete: "set null" }),
    targetUserId: integer("target_user_id").references(() => users.id, { onDelete: "set null" }),
    ipAddress: text("ip_address"),
    userAgent: text("user_agent"),
    sessionId: text("session_id"),
    endpoint: text("endpoint"),
    requestMethod: text("request_method"),
    responseStatus: integer("response_status"),
    details: text("details", { mode: "json" }).$type<Record<string, unknown>>(),
    severity: text("severity", { enum: ["low", "medium", "high", "critical"] })
      .notNull()
      .default("low"),
    createdAt: createdAt(),
  },
  (table) => [
    index("security_events_created_idx").on(table.createdAt),
    index("security_events_type_created_idx").on(table.eventType, table.createdAt),
    index("security_events_ip_idx").on(table.ipAddress),
  ],
);

export const folders = sqliteTable(
  "folders",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    recipients: text("recipients", { mode: "json" }).$type<Recipient[]>().notNull().default([]),
    recipientEmail: text("recipient_email"),
    recipientEmail2: text("recipient_email_2"),
    recipientName: text("recipient_name"),
    recipientName2: text("recipient_name_2"),
    ccSender: flag("cc_sender"),
    personalSignoff: text("personal_signoff"),
    /** A few words for the next issue only, at its top; cleared by the send that carries it. */
    issueNote: text("issue_note"),
    frequency: text("frequency", { enum: ["daily", "weekly", "biweekly", "monthly"] })
      .notNull()
      .default("weekly"),
    dayOfWeek: integer("day_of_week").notNull().default(1),
    dayOfMonth: integer("day_of_month"),
    timeOfDay: text("time_of_day").notNull().default("00:01"),
    isPaused: flag("is_paused"),
    pauseReason: text("pause_reason"),
    isUnsubscribed: flag("is_unsubscribed"),
    unsubscribedAt: timestamp("unsubscribed_at"),
    unsubscribeReason: text("unsubscribe_reason"),
    bounceCount: integer("bounce_count").notNull().default(0),
    lastBounceAt: timestamp("last_bounce_at"),
    bounceStatus: text("bounce_status").notNull().default("none"),
    bounceReason: text("bounce_reason"),
    lastEngagementAt: timestamp("last_engagement_at"),
    totalOpens: integer("total_opens").notNull().default(0),
    totalClicks: integer("total_clicks").notNull().default(0),
    engagementScore: real("engagement_score").notNull().default(0),
    lastSentAt: timestamp("last_sent_at"),
    nextSendAt: timestamp("next_send_at"),
    /** The one occurrence the sender skipped: `nextSendAt` passes over it while it is still ahead. */
    skippedSendAt: timestamp("skipped_send_at"),
    sortOrder: integer("sort_order").notNull().default(0),
    /**
     * How recipients' answers reach the sender by e-mail (docs/decisions/0159-recipients-answer-back.md):
     * gathered once a day, each note at once (hearts still gathered), or not at all.
     */
    answerEmails: text("answer_emails", { enum: ["daily", "each", "none"] })
      .notNull()
      .default("daily"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (table) => [
    index("folders_user_sort_idx").on(table.userId, table.sortOrder),
    index("folders_next_send_idx").on(table.nextSendAt),
  ],
);

/** Per folder and recipient: unsubscribed, bounced, and when re-subscription was last asked. */
export const folderRecipientStates = sqliteTable(
  "folder_recipient_states",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    folderId: integer("folder_id")
      .notNull()
      .references(() => folders.id, { onDelete: "cascade" }),
    email: text("email").notNull(),
    /** The mailbox `email` delivers to (app/platform/email-address.ts, `mailboxKey`). */
    mailbox: text("mailbox").notNull().default(""),
    status: text("status", { enum: ["active", "unsubscribed", "bounced"] })
      .notNull()
      .default("active"),
    unsubscribedAt: timestamp("unsubscribed_at"),
    unsubscribeReason: text("unsubscribe_reason"),
    bounceCount: integer("bounce_count").notNull().default(0),
    lastBounceAt: timestamp("last_bounce_at"),
    bounceReason: text("bounce_reason"),
    resubscribeRequestedAt: timestamp("resubscribe_requested_at"),
    updatedAt: updatedAt(),
  },
  (table) => [
    uniqueIndex("folder_recipient_states_folder_email_uq").on(table.folderId, table.email),
    index("folder_recipient_states_folder_mailbox_idx").on(table.folderId, table.mailbox),
  ],
);

export const contentItems = sqliteTable(
  "content_items",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    folderId: integer("folder_id")
      .notNull()
      .references(() => folders.id, { onDelete: "cascade" }),
    type: text("type", { enum: ["link", "photo", "file", "musing", "video"] }).notNull(),
    title: text("title").notNull(),
    urls: text("urls", { mode: "json" }).$type<string[]>().notNull().default([]),
    filePaths: text("file_paths", { mode: "json" }).$type<string[]>().notNull().default([]),
    fileNames: text("file_names", { mode: "json" }).$type<string[]>().notNull().default([]),
    fileSizes: text("file_sizes", { mode: "json" }).$type<number[]>().notNull().default([]),
    mimeTypes: text("mime_types", { mode: "json" }).$type<string[]>().notNull().default([]),
    /** Small JPEG previews of photos for the dashboard, parallel to filePaths ("" for none). */
    thumbnailPaths: text("thumbnail_paths", { mode: "json" })
      .$type<string[]>()
      .notNull()
      .default([]),
    addComment: flag("add_comment"),
    askQuestion: flag("ask_question"),
    commentText: text("comment_text"),
    questionText: text("question_text"),
    note: text("note"),
    responseExpectation: text("response_expectation", {
      enum: ["na", "not_expecting", "expecting"],
    })
      .notNull()
      .default("na"),
    sortOrder: integer("sort_order").notNull().default(0),
    /**
     * The link's preview card (app/modules/items/link-previews.server.ts), fetched in
     * the background after the link is saved: null for other types; pending
     * until fetched (a crash leaves it pending, so the next pass fetches it);
     * failed leaves the plain link; removed when the sender took it away.
     */
    previewStatus: text("preview_status", { enum: ["pending", "ready", "failed", "removed"] }),
    /** The address the preview describes (the first URL); an edit that changes it fetches again. */
    previewUrl: text("preview_url"),
    previewTitle: text("preview_title"),
    previewDescription: text("preview_description"),
    previewSiteName: text("preview_site_name"),
    /** The card's picture in storage (resized, metadata stripped); counted in the folder's size. */
    previewImageKey: text("preview_image_key"),
    previewImageSize: integer("preview_image_size").notNull().default(0),
    previewAttempts: integer("preview_attempts").notNull().default(0),
    /** A pending preview is not tried again before this (a retry's wait, or a running fetch's lease). */
    previewNextAttemptAt: timestamp("preview_next_attempt_at"),
    /**
     * A video's preparation (app/modules/items/video-preparation.server.ts): preparing
     * while the clip as uploaded is the item's file, ready once the transcoded MP4 has
     * replaced it (its poster the thumbnail), failed with the refusal in `videoError`.
     * Null for other items. A crash leaves it preparing; the lease then runs out and
     * the next pass starts it again.
     */
    videoStatus: text("video_status", { enum: ["preparing", "ready", "failed"] }),
    /** Percent transcoded, from ffmpeg's own progress. */
    videoProgress: integer("video_progress").notNull().default(0),
    videoError: text("video_error"),
    videoAttempts: integer("video_attempts").notNull().default(0),
    /** Not tried again before this: a running transcode's lease, or a retry's wait. */
    videoNextAttemptAt: timestamp("video_next_attempt_at"),
    videoDurationMs: integer("video_duration_ms"),
    securityStatus: text("security_status").notNull().default("safe"),
    quarantineReason: text("quarantine_reason"),
    /**
     * The item's stored files the last send found gone (a restore, a lost volume): the send
     * left the item behind in the folder (app/modules/sending/missing-files.server.ts). Each
     * send looks again, so a file put back, or replaced by the sender, clears it.
     */
    missingFiles: text("missing_files", { mode: "json" }).$type<string[]>().notNull().default([]),
    createdAt: createdAt(),
    sentAt: timestamp("sent_at"),
  },
  (table) => [
    index("content_items_folder_sort_idx").on(table.folderId, table.sentAt, table.sortOrder),
    index("content_items_preview_status_idx").on(table.previewStatus),
  ],
);

/**
 * Items deleted in the last few minutes, kept whole so Undo can put them back
 * (app/modules/items/item-undo.server.ts). Their files stay stored until the row
 * expires; the orphan sweep counts them as referenced.
 */
export const deletedItems = sqliteTable(
  "deleted_items",
  {
    itemId: integer("item_id").primaryKey(),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    folderId: integer("folder_id")
      .notNull()
      .references(() => folders.id, { onDelete: "cascade" }),
    /** The content_items row as it was, JSON-encoded. */
    item: text("item", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
    fileKeys: text("file_keys", { mode: "json" }).$type<string[]>().notNull().default([]),
    deletedAt: timestamp("deleted_at").notNull(),
  },
  (table) => [index("deleted_items_deleted_at_idx").on(table.deletedAt)],
);

/**
 * The send ledger: one row per folder and scheduled occurrence. The unique key
 * is what makes a crash or a second scheduler unable to send the same
 * occurrence twice; the recipient rows say who still needs their copy.
 */
/** A send's Message-ID token: 128 random bits, in hex. */
export function newMessageToken() {
  return crypto.randomBytes(16).toString("hex");
}

export const sendLedger = sqliteTable(
  "send_ledger",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    folderId: integer("folder_id")
      .notNull()
      .references(() => folders.id, { onDelete: "cascade" }),
    occurrenceKey: text("occurrence_key").notNull(),
    trigger: text("trigger", { enum: ["schedule", "send_now"] }).notNull(),
    status: text("status", { enum: ["pending", "sending", "sent", "skipped", "failed"] })
      .notNull()
      .default("pending"),
    itemIds: text("item_ids", { mode: "json" }).$type<number[]>().notNull().default([]),
    /** The claim's holder (host, boot, pid, process start, random): see app/modules/sending/send-claim.server.ts. */
    claimedBy: text("claimed_by"),
    claimedAt: timestamp("claimed_at"),
    /** The holder renews this while it works; past it, anyone may take the claim over. */
    leaseExpiresAt: timestamp("lease_expires_at"),
    completedAt: timestamp("completed_at"),
    /** The sender was Premium when the send opened: its HTML carries the open image and click links. */
    tracked: flag("tracked"),
    /** The folder's note for this issue, as it was when the send opened: every copy carries the same. */
    issueNote: text("issue_note"),
    /** The sender deleted this sent issue: gone from the archive, its web version refused. */
    deletedAt: timestamp("deleted_at"),
    /**
     * Random, in every copy's Message-ID: the same for each copy and resend of this send, never
     * another's, even after a restore gives out its id again
     * (docs/decisions/0244-a-restore-knows-what-was-sent.md). Sends opened before it hold their
     * id here, the Message-ID they went out with.
     */
    messageToken: text("message_token")
      .notNull()
      .$defaultFn(() => newMessageToken()),
    createdAt: createdAt(),
  },
  (table) => [
    uniqueIndex("send_ledger_folder_occurrence_uq").on(table.folderId, table.occurrenceKey),
    uniqueIndex("send_ledger_message_token_uq").on(table.messageToken),
    index("send_ledger_status_idx").on(table.status),
  ],
);

export const sendLedgerRecipients = sqliteTable(
  "send_ledger_recipients",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    ledgerId: integer("ledger_id")
      .notNull()
      .references(() => sendLedger.id, { onDelete: "cascade" }),
    email: text("email").notNull(),
    kind: text("kind", { enum: ["recipient", "cc"] })
      .notNull()
      .default("recipient"),
    status: text("status", { enum: ["pending", "sent", "failed", "bounced", "skipped"] })
      .notNull()
      .default("pending"),
    attempts: integer("attempts").notNull().default(0),
    nextAttemptAt: timestamp("next_attempt_at"),
    lastError: text("last_error"),
    messageId: text("message_id"),
    sentAt: timestamp("sent_at"),
  },
  (table) => [uniqueIndex("send_ledger_recipients_uq").on(table.ledgerId, table.email, table.kind)],
);

export const emailDeliveries = sqliteTable(
  "email_deliveries",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    folderId: integer("folder_id")
      .notNull()
      .references(() => folders.id, { onDelete: "cascade" }),
    recipientEmail: text("recipient_email").notNull(),
    /** The send this copy belonged to (null for rows older than the sent archive). */
    ledgerId: integer("ledger_id").references(() => sendLedger.id, { onDelete: "cascade" }),
    sentAt: integer("sent_at", { mode: "timestamp_ms" })
      .notNull()
      .default(sql`(cast(unixepoch('subsec') * 1000 as integer))`),
    openedAt: timestamp("opened_at"),
    itemCount: integer("item_count").notNull().default(0),
    emailSizeBytes: integer("email_size_bytes").notNull().default(0),
    contentBreakdown: text("content_breakdown", { mode: "json" }).$type<ContentBreakdown>(),
    openCount: integer("open_count").notNull().default(0),
    clickCount: integer("click_count").notNull().default(0),
    lastOpenedAt: timestamp("last_opened_at"),
    userAgent: text("user_agent"),
  },
  (table) => [
    index("email_deliveries_sent_idx").on(table.sentAt),
    index("email_deliveries_folder_idx").on(table.folderId),
    index("email_deliveries_ledger_idx").on(table.ledgerId, table.recipientEmail),
  ],
);

export const emailAttempts = sqliteTable(
  "email_attempts",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    userId: integer("user_id").references(() => users.id, { onDelete: "cascade" }),
    folderId: integer("folder_id").references(() => folders.id, { onDelete: "cascade" }),
    attemptType: text("attempt_type").notNull(),
    attemptedAt: integer("attempted_at", { mode: "timestamp_ms" })
      .notNull()
      .default(sql`(cast(unixepoch('subsec') * 1000 as integer))`),
    errorType: text("error_type"),
  },
  (table) => [index("email_attempts_folder_idx").on(table.folderId, table.attemptedAt)],
);

/** "Everything from Thoughtfully": an address that gets no message from any sender. */
export const emailUnsubscribes = sqliteTable(
  "email_unsubscribes",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    email: text("email").notNull().unique(),
    /** The mailbox `email` delivers to (app/platform/email-address.ts, `mailboxKey`). */
    mailbox: text("mailbox").notNull().default(""),
    unsubscribedAt: integer("unsubscribed_at", { mode: "timestamp_ms" })
      .notNull()
      .default(sql`(cast(unixepoch('subsec') * 1000 as integer))`),
    unsubscribeReason: text("unsubscribe_reason", {
      enum: ["unknown", "not_interested", "too_frequent", "other"],
    })
      .notNull()
      .default("unknown"),
    folderId: integer("folder_id").references(() => folders.id, { onDelete: "set null" }),
    userId: integer("user_id").references(() => users.id, { onDelete: "set null" }),
    ipAddress: text("ip_address"),
    userAgent: text("user_agent"),
  },
  (table) => [index("email_unsubscribes_mailbox_idx").on(table.mailbox)],
);

/**
 * Every request a sender made for an address to re-subscribe. Kept apart from
 * folders, so deleting and recreating a folder does not reset the limits; it
 * goes with the sender's account.
 */
export const resubscribeRequests = sqliteTable(
  "resubscribe_requests",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    senderUserId: integer("sender_user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    email: text("email").notNull(),
    folderId: integer("folder_id").references(() => folders.id, { onDelete: "set null" }),
    requestedAt: integer("requested_at", { mode: "timestamp_ms" })
      .notNull()
      .default(sql`(cast(unixepoch('subsec') * 1000 as integer))`),
  },
  (table) => [
    index("resubscribe_requests_email_idx").on(table.email, table.requestedAt),
    index("resubscribe_requests_sender_idx").on(table.senderUserId, table.email),
  ],
);

/** "Don't ask me again": an address no sender may ask to re-subscribe. */
export const resubscribeRefusals = sqliteTable("resubscribe_refusals", {
  email: text("email").primaryKey(),
  refusedAt: integer("refused_at", { mode: "timestamp_ms" })
    .notNull()
    .default(sql`(cast(unixepoch('subsec') * 1000 as integer))`),
});

export const referralCodes = sqliteTable("referral_codes", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  userId: integer("user_id")
    .notNull()
    .unique()
    .references(() => users.id, { onDelete: "cascade" }),
  code: text("code").notNull().unique(),
  createdAt: createdAt(),
});

export const referrals = sqliteTable(
  "referrals",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    referrerUserId: integer("referrer_user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    inviteeUserId: integer("invitee_user_id")
      .notNull()
      .unique()
      .references(() => users.id, { onDelete: "cascade" }),
    referralCode: text("referral_code").notNull(),
    status: text("status", { enum: ["pending", "completed"] })
      .notNull()
      .default("pending"),
    createdAt: createdAt(),
    completedAt: timestamp("completed_at"),
  },
  (table) => [index("referrals_referrer_idx").on(table.referrerUserId, table.status)],
);

export const analyticsSnapshots = sqliteTable("analytics_snapshots", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  snapshotDate: text("snapshot_date").notNull().unique(),
  weeklyActiveCurators: integer("weekly_active_curators").notNull().default(0),
  averageItemsPerEmail: real("average_items_per_email").notNull().default(0),
  recipientRetentionRate: real("recipient_retention_rate").notNull().default(0),
  totalCurators: integer("total_curators").notNull().default(0),
  totalRecipients: integer("total_recipients").notNull().default(0),
  totalEmailsSent: integer("total_emails_sent").notNull().default(0),
  emailsSentLast30Days: integer("emails_sent_last_30_days").notNull().default(0),
  averageRecipientsPerFolder: real("average_recipients_per_folder").notNull().default(0),
  averageFoldersPerUser: real("average_folders_per_user").notNull().default(0),
  averageEmailSizeBytes: real("average_email_size_bytes").notNull().default(0),
  averageFoldersPerWeeklyCurator: real("average_folders_per_weekly_curator").notNull().default(0),
  averageEmailSizeBytesPerWeeklyCurator: real("average_email_size_bytes_per_weekly_curator")
    .notNull()
    .default(0),
  averageLinksPerEmail: real("average_links_per_email").notNull().default(0),
  averagePhotosPerEmail: real("average_photos_per_email").notNull().default(0),
  averageFilesPerEmail: real("average_files_per_email").notNull().default(0),
  totalStorageBytes: integer("total_storage_bytes").notNull().default(0),
  createdAt: createdAt(),
});

export const csrfTokens = sqliteTable(
  "csrf_tokens",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    token: text("token").notNull().unique(),
    userId: integer("user_id").references(() => users.id, { onDelete: "cascade" }),
    sessionId: text("session_id"),
    createdAt: createdAt(),
    expiresAt: timestamp("expires_at").notNull(),
    isUsed: flag("is_used"),
    usedAt: timestamp("used_at"),
    ipAddress: text("ip_address"),
    userAgent: text("user_agent"),
  },
  (table) => [index("csrf_tokens_session_idx").on(table.sessionId)],
);

export const securityRejections = sqliteTable(
  "security_rejections",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    timestamp: integer("timestamp", { mode: "timestamp_ms" })
      .notNull()
      .default(sql`(cast(unixepoch('subsec') * 1000 as integer))`),
    userId: integer("user_id").references(() => users.id, { onDelete: "set null" }),
    ipAddress: text("ip_address"),
    userAgent: text("user_agent"),
    originalFilename: text("original_filename"),
    claimedMimeType: text("claimed_mime_type"),
    detectedFileType: text("detected_file_type"),
    fileSizeBytes: integer("file_size_bytes"),
    expectedHeader: text("expected_header"),
    actualHeader: text("actual_header"),
    headerOffset: integer("header_offset"),
    threatType: text("threat_type"),
    threatLevel: text("threat_level"),
    attackVector: text("attack_vector"),
    rejectionReason: text("rejection_reason"),
    additionalSignatures: text("additional_signatures", { mode: "json" }).$type<string[]>(),
    scanMetadata: text("scan_metadata", { mode: "json" }).$type<Record<string, unknown>>(),
  },
  (table) => [index("security_rejections_timestamp_idx").on(table.timestamp)],
);

/** Stripe webhook events already handled, so a redelivered event has no second effect. */
export const processedStripeEvents = sqliteTable("processed_stripe_events", {
  id: text("id").primaryKey(),
  type: text("type").notNull(),
  processedAt: createdAt(),
});

/**
 * Upload to Multiple Folders, between its steps: the content typed and the
 * files already stored, owned by the user, removed when the wizard finishes,
 * is closed, or after 24 hours.
 */
export type DraftFile = {
  key: string;
  thumbnailKey?: string;
  name: string;
  size: number;
  mimeType: string;
  /** A photo's day taken, for its title (app/modules/files/upload-kinds.ts). */
  takenOn?: string;
};

export const uploadDrafts = sqliteTable(
  "upload_drafts",
  {
    id: text("id").primaryKey(),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    type: text("type", { enum: ["link", "musing", "photo", "file", "video"] }).notNull(),
    fields: text("fields", { mode: "json" }).$type<Record<string, unknown>>().notNull().default({}),
    files: text("files", { mode: "json" }).$type<DraftFile[]>().notNull().default([]),
    folderIds: text("folder_ids", { mode: "json" }).$type<number[]>().notNull().default([]),
    createdAt: createdAt(),
    expiresAt: timestamp("expires_at").notNull(),
  },
  (table) => [index("upload_drafts_user_idx").on(table.userId)],
);

/**
 * Counters of every rate limit (app/platform/rate-limit.server.ts), in the shape
 * rate-limiter-flexible's SQLite store reads and writes: one row per limit and
 * key, `points` consumed until `expire` (Unix ms).
 */
export const rateLimits = sqliteTable("rate_limits", {
  key: text("key").primaryKey(),
  points: integer("points").notNull().default(0),
  expire: integer("expire"),
});

/**
 * Personal access tokens for the JSON API (/api/v1). Only the SHA-256 of the
 * token is stored; the token itself is shown once, when it is created.
 * Revoking deletes the row, so a revoked token matches nothing.
 */
export const apiTokens = sqliteTable(
  "api_tokens",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    tokenHash: text("token_hash").notNull().unique(),
    scope: text("scope", { enum: ["read", "write"] }).notNull(),
    createdAt: createdAt(),
    lastUsedAt: timestamp("last_used_at"),
    /** A token stops working at this time (docs/product-rules.md, "Credentials"). */
    expiresAt: timestamp("expires_at"),
  },
  (table) => [index("api_tokens_user_idx").on(table.userId)],
);

/**
 * A Premium sender's newsletter look: one of the templates, an accent colour
 * and an optional header image. The image is small (re-encoded on upload,
 * see docs/decisions/0065-newsletter-templates-and-branding.md) and stored here
 * once, not in file storage: every newsletter attaches it inline by `cid`.
 * Kept when Premium ends, and used again if it comes back.
 */
export const senderBranding = sqliteTable("sender_branding", {
  userId: integer("user_id")
    .primaryKey()
    .references(() => users.id, { onDelete: "cascade" }),
  template: text("template", { enum: ["classic", "letter", "postcard"] })
    .notNull()
    .default("classic"),
  accentColor: text("accent_color"),
  headerImage: blob("header_image", { mode: "buffer" }),
  headerImageType: text("header_image_type"),
  headerImageWidth: integer("header_image_width"),
  headerImageHeight: integer("header_image_height"),
  updatedAt: updatedAt(),
});

/**
 * A user's authenticator (TOTP) secret. `enabledAt` is null while set-up
 * waits for its first code; `lastUsedStep` is the 30-second step of the last
 * accepted code, so a code cannot be used twice
 * (docs/decisions/0061-two-factor-sign-in.md).
 */
export const twoFactorSecrets = sqliteTable("two_factor_secrets", {
  userId: integer("user_id")
    .primaryKey()
    .references(() => users.id, { onDelete: "cascade" }),
  secret: text("secret").notNull(),
  enabledAt: timestamp("enabled_at"),
  lastUsedStep: integer("last_used_step"),
  createdAt: createdAt(),
});

/** One-time recovery codes, stored as SHA-256; a used code's row is deleted. */
export const recoveryCodes = sqliteTable(
  "recovery_codes",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    codeHash: text("code_hash").notNull(),
    createdAt: createdAt(),
  },
  (table) => [uniqueIndex("recovery_codes_user_code_idx").on(table.userId, table.codeHash)],
);

/**
 * Passkeys (WebAuthn credentials): a way to sign in without a password, and
 * a second factor. `id` is the credential id and `publicKey` the COSE key,
 * both base64url; `counter` is the authenticator's signature counter.
 */
export const passkeys = sqliteTable(
  "passkeys",
  {
    id: text("id").primaryKey(),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    publicKey: text("public_key").notNull(),
    counter: integer("counter").notNull().default(0),
    transports: text("transports", { mode: "json" }).$type<string[]>().notNull().default([]),
    name: text("name").notNull(),
    createdAt: createdAt(),
    lastUsedAt: timestamp("last_used_at"),
  },
  (table) => [index("passkeys_user_idx").on(table.userId)],
);

/**
 * A WebAuthn ceremony's challenge, held on the server until it is answered:
 * deleted when used, so a signed response cannot be replayed, and ignored
 * after `expiresAt`.
 */
export const webauthnChallenges = sqliteTable(
  "webauthn_challenges",
  {
    challenge: text("challenge").primaryKey(),
    purpose: text("purpose", { enum: ["register", "sign-in"] }).notNull(),
    userId: integer("user_id").references(() => users.id, { onDelete: "cascade" }),
    expiresAt: timestamp("expires_at").notNull(),
  },
  (table) => [index("webauthn_challenges_expires_idx").on(table.expiresAt)],
);

/**
 * A credential notice's undo link that was used: the primary key makes the
 * first use the only one (docs/decisions/0176-undo-links-work-once.md). The
 * row says when, and whether the added credential went; it is kept until the
 * link would have expired anyway.
 */
export const undoLinkUses = sqliteTable("undo_link_uses", {
  /** SHA-256 of the link's token: one signed payload has one token. */
  linkHash: text("link_hash").primaryKey(),
  userId: integer("user_id")
    .notNull()
    .references(() => users.id, { onDelete: "cascade" }),
  usedAt: timestamp("used_at").notNull(),
  credentialRemoved: flag("credential_removed"),
  expiresAt: timestamp("expires_at").notNull(),
});

/**
 * What a relay or a mail server told us later about a copy we sent: the
 * mailbox does not exist (hard bounce), is full or away for now (soft
 * bounce), or its owner marked the newsletter as spam (complaint). Matched
 * to the copy by its per-recipient return path, never by what the report
 * claims; `source` and `sourceEventId` make a report counted once however
 * often it is delivered.
 */
export const deliveryReports = sqliteTable(
  "delivery_reports",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    /** Where it came from: a relay's webhook (ses, postmark, mailgun, sendgrid, resend), a DSN or ARF message, or the SMTP answer itself. */
    source: text("source").notNull(),
    sourceEventId: text("source_event_id").notNull(),
    ledgerRecipientId: integer("ledger_recipient_id").references(() => sendLedgerRecipients.id, {
      onDelete: "set null",
    }),
    senderUserId: integer("sender_user_id").references(() => users.id, { onDelete: "cascade" }),
    folderId: integer("folder_id").references(() => folders.id, { onDelete: "set null" }),
    email: text("email").notNull(),
    /** The mailbox `email` delivers to (app/platform/email-address.ts, `mailboxKey`). */
    mailbox: text("mailbox").notNull(),
    kind: text("kind", { enum: ["hard_bounce", "soft_bounce", "complaint"] }).notNull(),
    detail: text("detail"),
    occurredAt: timestamp("occurred_at").notNull(),
    /** When the report reached us; rates are counted over this. */
    createdAt: createdAt(),
  },
  (table) => [
    uniqueIndex("delivery_reports_source_event_uq").on(table.source, table.sourceEventId),
    index("delivery_reports_sender_idx").on(table.senderUserId, table.createdAt),
    index("delivery_reports_mailbox_idx").on(table.mailbox, table.createdAt),
  ],
);

/**
 * A mailbox no sender may mail: it does not exist, it kept refusing for a
 * while, or its owner reported spam. Keyed by mailbox, as opt-outs are, so no
 * other spelling of the address gets through. A complaint is lifted only by
 * the recipient re-subscribing from a link they followed themselves.
 */
export const mailboxSuppressions = sqliteTable("mailbox_suppressions", {
  mailbox: text("mailbox").primaryKey(),
  /** The address as it was reported, for the sender's and the admin's pages. */
  email: text("email").notNull(),
  reason: text("reason", { enum: ["hard_bounce", "soft_bounce", "complaint"] }).notNull(),
  /** Null: until lifted. Set for soft bounces, which suppress for a while. */
  suppressedUntil: timestamp("suppressed_until"),
  reportId: integer("report_id").references(() => deliveryReports.id, { onDelete: "set null" }),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
});

/**
 * A folder's private address for saving by e-mail (`<code>@INBOUND_EMAIL_DOMAIN`,
 * docs/decisions/0158-save-by-email.md). The random code is the capability:
 * rotating it replaces the row's code, and the old address stops at once.
 */
export const folderInboxes = sqliteTable("folder_inboxes", {
  folderId: integer("folder_id")
    .primaryKey()
    .references(() => folders.id, { onDelete: "cascade" }),
  code: text("code").notNull().unique(),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
});

/**
 * Each message saved into a folder by e-mail, by its Message-ID (or a hash of
 * the message when it has none): a provider's retry or a second delivery of
 * the same message saves nothing twice.
 */
export const inboundMessages = sqliteTable(
  "inbound_messages",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    folderId: integer("folder_id")
      .notNull()
      .references(() => folders.id, { onDelete: "cascade" }),
    messageKey: text("message_key").notNull(),
    itemCount: integer("item_count").notNull(),
    createdAt: createdAt(),
  },
  (table) => [uniqueIndex("inbound_messages_folder_key_uq").on(table.folderId, table.messageKey)],
);

/**
 * A recipient's answer to one item of a sent issue: a heart (at most one per
 * copy and item; pressing again takes it back, deleting the row) or a note
 * (plain text). Reached by a signed link bound to the copy and the item
 * (app/modules/recipients/recipient-links.server.ts, `answerLinkCode`); the
 * owner's id is kept so every query of a sender's answers filters by it.
 * Deleting the issue, its folder or the account deletes its answers.
 */
export const itemAnswers = sqliteTable(
  "item_answers",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    folderId: integer("folder_id")
      .notNull()
      .references(() => folders.id, { onDelete: "cascade" }),
    ledgerId: integer("ledger_id")
      .notNull()
      .references(() => sendLedger.id, { onDelete: "cascade" }),
    /** The recipient's copy of the issue: who answered. */
    copyId: integer("copy_id")
      .notNull()
      .references(() => sendLedgerRecipients.id, { onDelete: "cascade" }),
    itemId: integer("item_id")
      .notNull()
      .references(() => contentItems.id, { onDelete: "cascade" }),
    /** The recipient's address as it was mailed (lower case). */
    email: text("email").notNull(),
    kind: text("kind", { enum: ["heart", "note"] }).notNull(),
    /** A note's text as typed (plain text, rendered escaped); null for a heart. */
    body: text("body"),
    createdAt: createdAt(),
    /** The e-mail to the sender that carried it (null until one did, or when none will). */
    digestId: integer("digest_id").references(() => answerDigests.id, { onDelete: "set null" }),
  },
  (table) => [
    uniqueIndex("item_answers_heart_uq")
      .on(table.copyId, table.itemId)
      .where(sql`${table.kind} = 'heart'`),
    index("item_answers_ledger_idx").on(table.ledgerId, table.itemId),
    index("item_answers_user_created_idx").on(table.userId, table.createdAt),
    index("item_answers_digest_idx").on(table.digestId),
  ],
);

/**
 * One e-mail to a sender about their recipients' answers: the day's gathering
 * (`key` "daily:<sender's local date>") or one note at once ("note:<answer id>").
 * The unique key is what makes a crash, a restart or a second scheduler unable
 * to send the same e-mail twice; the answers it carries point at it.
 */
export const answerDigests = sqliteTable(
  "answer_digests",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    key: text("key").notNull(),
    status: text("status", { enum: ["pending", "sent", "failed"] })
      .notNull()
      .default("pending"),
    attempts: integer("attempts").notNull().default(0),
    nextAttemptAt: timestamp("next_attempt_at"),
    createdAt: createdAt(),
    sentAt: timestamp("sent_at"),
  },
  (table) => [
    uniqueIndex("answer_digests_user_key_uq").on(table.userId, table.key),
    index("answer_digests_status_idx").on(table.status),
  ],
);

/**
 * The day-before reminder of one folder's scheduled occurrence: the items still
 * waiting for a note, e-mailed to the folder's owner
 * (docs/decisions/0198-waiting-items-reminder.md). Unique per (folder,
 * occurrence): the row is claimed before anything is sent, so a crash, a
 * restart or a second scheduler cannot send the same reminder twice.
 */
export const waitingReminders = sqliteTable(
  "waiting_reminders",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    folderId: integer("folder_id")
      .notNull()
      .references(() => folders.id, { onDelete: "cascade" }),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    /**
     * The send ledger's key of the occurrence it announces (`occurrenceKey`); for "left",
     * `left:<ms>`, the moment the folder lost its last recipient.
     */
    occurrenceKey: text("occurrence_key").notNull(),
    /**
     * "note": the day before, items wait for a note; "video": the send went by with nothing
     * to send, its only items videos not prepared (docs/decisions/0220-a-send-held-back-by-its-videos-is-told.md);
     * "left": the folder's last recipient unsubscribed
     * (docs/decisions/0249-the-sender-told-when-the-last-recipient-leaves.md).
     */
    kind: text("kind", { enum: ["note", "video", "left"] })
      .notNull()
      .default("note"),
    status: text("status", { enum: ["pending", "sent", "failed"] })
      .notNull()
      .default("pending"),
    attempts: integer("attempts").notNull().default(0),
    nextAttemptAt: timestamp("next_attempt_at"),
    createdAt: createdAt(),
    sentAt: timestamp("sent_at"),
  },
  (table) => [
    uniqueIndex("waiting_reminders_folder_occurrence_kind_uq").on(
      table.folderId,
      table.occurrenceKey,
      table.kind,
    ),
    index("waiting_reminders_status_idx").on(table.status),
  ],
);

/**
 * The one-time key each create form carries, kept once its save went through
 * (docs/decisions/0201-a-repeated-submit-is-taken-once.md): the same form sent
 * again (the browser's own retry after the signal dropped, a double tap) finds
 * its key and is answered with where the first save led, saving nothing more.
 * Kept a day, then pruned.
 */
export const oneTimeKeys = sqliteTable(
  "one_time_keys",
  {
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    key: text("key").notNull(),
    /** Where the first save led (the new item or folder), for every repeat of it. */
    location: text("location").notNull(),
    createdAt: createdAt(),
  },
  (table) => [
    primaryKey({ columns: [table.userId, table.key] }),
    index("one_time_keys_created_idx").on(table.createdAt),
  ],
);

/**
 * The one welcome each mailbox gets when a sender adds it to a folder
 * (docs/decisions/0208-a-welcome-before-the-first-issue.md): claimed in the
 * transaction that saves the folder's recipients, unique per (folder,
 * mailbox), then sent under a lease like the waiting reminders. `answer` is
 * the recipient's press on the welcome page: "yes" for "Sounds lovely", "no"
 * for "Not for me" (which also unsubscribes them from the folder).
 */
export const recipientWelcomes = sqliteTable(
  "recipient_welcomes",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    folderId: integer("folder_id")
      .notNull()
      .references(() => folders.id, { onDelete: "cascade" }),
    /** The address as the folder lists it (canonical). */
    email: text("email").notNull(),
    /** The mailbox `email` delivers to (app/platform/email-address.ts, `mailboxKey`). */
    mailbox: text("mailbox").notNull(),
    /** "skipped": the mailbox takes no mail (it left, or is suppressed) when its turn came. */
    status: text("status", { enum: ["pending", "sent", "skipped", "failed"] })
      .notNull()
      .default("pending"),
    attempts: integer("attempts").notNull().default(0),
    nextAttemptAt: timestamp("next_attempt_at"),
    createdAt: createdAt(),
    sentAt: timestamp("sent_at"),
    answer: text("answer", { enum: ["yes", "no"] }),
    answeredAt: timestamp("answered_at"),
  },
  (table) => [
    uniqueIndex("recipient_welcomes_folder_mailbox_uq").on(table.folderId, table.mailbox),
    index("recipient_welcomes_status_idx").on(table.status),
  ],
);

/**
 * The relay's refusals that are about us or a message, never a recipient
 * (app/modules/sending/relay-answers.server.ts), for the operator: the admin and
 * postmaster pages show them. About "relay": a hold of all sending, open while
 * `ended_at` is null, tried again from `next_try_at` (app/modules/sending/relay-hold.server.ts).
 * About "message": the send whose message the relay refused, one row per send.
 * docs/decisions/0240-every-smtp-answer-read-for-what-it-is-about.md
 */
export const relayRefusals = sqliteTable(
  "relay_refusals",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    about: text("about", { enum: ["relay", "message"] }).notNull(),
    ledgerId: integer("ledger_id").references(() => sendLedger.id, { onDelete: "cascade" }),
    /** Where in the SMTP conversation: "connection", "AUTH", "MAIL FROM", "end of DATA"… */
    stage: text("stage").notNull(),
    /** The relay's last reply, on one line, without our secrets. */
    answer: text("answer").notNull(),
    refusals: integer("refusals").notNull().default(1),
    firstAt: timestamp("first_at").notNull(),
    lastAt: timestamp("last_at").notNull(),
    nextTryAt: timestamp("next_try_at"),
    endedAt: timestamp("ended_at"),
  },
  (table) => [
    index("relay_refusals_open_idx").on(table.about, table.endedAt),
    uniqueIndex("relay_refusals_ledger_uq").on(table.ledgerId),
    index("relay_refusals_last_idx").on(table.lastAt),
  ],
);
