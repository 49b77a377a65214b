CREATE TABLE `analytics_snapshots` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`snapshot_date` text NOT NULL,
	`weekly_active_curators` integer DEFAULT 0 NOT NULL,
	`average_items_per_email` real DEFAULT 0 NOT NULL,
	`recipient_retention_rate` real DEFAULT 0 NOT NULL,
	`total_curators` integer DEFAULT 0 NOT NULL,
	`total_recipients` integer DEFAULT 0 NOT NULL,
	`total_emails_sent` integer DEFAULT 0 NOT NULL,
	`emails_sent_last_30_days` integer DEFAULT 0 NOT NULL,
	`average_recipients_per_folder` real DEFAULT 0 NOT NULL,
	`average_folders_per_user` real DEFAULT 0 NOT NULL,
	`average_email_size_bytes` real DEFAULT 0 NOT NULL,
	`average_folders_per_weekly_curator` real DEFAULT 0 NOT NULL,
	`average_email_size_bytes_per_weekly_curator` real DEFAULT 0 NOT NULL,
	`average_links_per_email` real DEFAULT 0 NOT NULL,
	`average_photos_per_email` real DEFAULT 0 NOT NULL,
	`average_files_per_email` real DEFAULT 0 NOT NULL,
	`total_storage_bytes` integer DEFAULT 0 NOT NULL,
	`created_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `analytics_snapshots_snapshot_date_unique` ON `analytics_snapshots` (`snapshot_date`);--> statement-breakpoint
CREATE TABLE `content_items` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`folder_id` integer NOT NULL,
	`type` text NOT NULL,
	`title` text NOT NULL,
	`urls` text DEFAULT '[]' NOT NULL,
	`file_paths` text DEFAULT '[]' NOT NULL,
	`file_names` text DEFAULT '[]' NOT NULL,
	`file_sizes` text DEFAULT '[]' NOT NULL,
	`mime_types` text DEFAULT '[]' NOT NULL,
	`add_comment` integer DEFAULT false NOT NULL,
	`ask_question` integer DEFAULT false NOT NULL,
	`comment_text` text,
	`question_text` text,
	`note` text,
	`response_expectation` text DEFAULT 'na' NOT NULL,
	`sort_order` integer DEFAULT 0 NOT NULL,
	`security_status` text DEFAULT 'safe' NOT NULL,
	`quarantine_reason` text,
	`created_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL,
	`sent_at` integer,
	FOREIGN KEY (`folder_id`) REFERENCES `folders`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `content_items_folder_sort_idx` ON `content_items` (`folder_id`,`sent_at`,`sort_order`);--> statement-breakpoint
CREATE TABLE `csrf_tokens` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`token` text NOT NULL,
	`user_id` integer,
	`session_id` text,
	`created_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL,
	`expires_at` integer NOT NULL,
	`is_used` integer DEFAULT false NOT NULL,
	`used_at` integer,
	`ip_address` text,
	`user_agent` text,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `csrf_tokens_token_unique` ON `csrf_tokens` (`token`);--> statement-breakpoint
CREATE INDEX `csrf_tokens_session_idx` ON `csrf_tokens` (`session_id`);--> statement-breakpoint
CREATE TABLE `email_attempts` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`user_id` integer,
	`folder_id` integer,
	`attempt_type` text NOT NULL,
	`attempted_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL,
	`error_type` text,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`folder_id`) REFERENCES `folders`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `email_attempts_folder_idx` ON `email_attempts` (`folder_id`,`attempted_at`);--> statement-breakpoint
CREATE TABLE `email_deliveries` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`folder_id` integer NOT NULL,
	`recipient_email` text NOT NULL,
	`sent_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL,
	`opened_at` integer,
	`item_count` integer DEFAULT 0 NOT NULL,
	`email_size_bytes` integer DEFAULT 0 NOT NULL,
	`content_breakdown` text,
	`open_count` integer DEFAULT 0 NOT NULL,
	`click_count` integer DEFAULT 0 NOT NULL,
	`last_opened_at` integer,
	`user_agent` text,
	FOREIGN KEY (`folder_id`) REFERENCES `folders`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `email_deliveries_sent_idx` ON `email_deliveries` (`sent_at`);--> statement-breakpoint
CREATE INDEX `email_deliveries_folder_idx` ON `email_deliveries` (`folder_id`);--> statement-breakpoint
CREATE TABLE `email_unsubscribes` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`email` text NOT NULL,
	`unsubscribed_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL,
	`unsubscribe_reason` text DEFAULT 'unknown' NOT NULL,
	`folder_id` integer,
	`user_id` integer,
	`ip_address` text,
	`user_agent` text,
	FOREIGN KEY (`folder_id`) REFERENCES `folders`(`id`) ON UPDATE no action ON DELETE set null,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE UNIQUE INDEX `email_unsubscribes_email_unique` ON `email_unsubscribes` (`email`);--> statement-breakpoint
CREATE TABLE `folder_recipient_states` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`folder_id` integer NOT NULL,
	`email` text NOT NULL,
	`status` text DEFAULT 'active' NOT NULL,
	`unsubscribed_at` integer,
	`unsubscribe_reason` text,
	`bounce_count` integer DEFAULT 0 NOT NULL,
	`last_bounce_at` integer,
	`bounce_reason` text,
	`resubscribe_requested_at` integer,
	`updated_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL,
	FOREIGN KEY (`folder_id`) REFERENCES `folders`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `folder_recipient_states_folder_email_uq` ON `folder_recipient_states` (`folder_id`,`email`);--> statement-breakpoint
CREATE TABLE `folders` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`user_id` integer NOT NULL,
	`name` text NOT NULL,
	`recipients` text DEFAULT '[]' NOT NULL,
	`recipient_email` text,
	`recipient_email_2` text,
	`recipient_name` text,
	`recipient_name_2` text,
	`cc_sender` integer DEFAULT false NOT NULL,
	`personal_signoff` text,
	`frequency` text DEFAULT 'weekly' NOT NULL,
	`day_of_week` integer DEFAULT 1 NOT NULL,
	`day_of_month` integer,
	`time_of_day` text DEFAULT '00:01' NOT NULL,
	`is_paused` integer DEFAULT false NOT NULL,
	`pause_reason` text,
	`is_unsubscribed` integer DEFAULT false NOT NULL,
	`unsubscribed_at` integer,
	`unsubscribe_reason` text,
	`bounce_count` integer DEFAULT 0 NOT NULL,
	`last_bounce_at` integer,
	`bounce_status` text DEFAULT 'none' NOT NULL,
	`bounce_reason` text,
	`last_engagement_at` integer,
	`total_opens` integer DEFAULT 0 NOT NULL,
	`total_clicks` integer DEFAULT 0 NOT NULL,
	`engagement_score` real DEFAULT 0 NOT NULL,
	`last_sent_at` integer,
	`next_send_at` integer,
	`sort_order` integer DEFAULT 0 NOT NULL,
	`created_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL,
	`updated_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `folders_user_sort_idx` ON `folders` (`user_id`,`sort_order`);--> statement-breakpoint
CREATE INDEX `folders_next_send_idx` ON `folders` (`next_send_at`);--> statement-breakpoint
CREATE TABLE `referral_codes` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`user_id` integer NOT NULL,
	`code` text NOT NULL,
	`created_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `referral_codes_user_id_unique` ON `referral_codes` (`user_id`);--> statement-breakpoint
CREATE UNIQUE INDEX `referral_codes_code_unique` ON `referral_codes` (`code`);--> statement-breakpoint
CREATE TABLE `referrals` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`referrer_user_id` integer NOT NULL,
	`invitee_user_id` integer NOT NULL,
	`referral_code` text NOT NULL,
	`status` text DEFAULT 'pending' NOT NULL,
	`created_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL,
	`completed_at` integer,
	FOREIGN KEY (`referrer_user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`invitee_user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `referrals_invitee_user_id_unique` ON `referrals` (`invitee_user_id`);--> statement-breakpoint
CREATE INDEX `referrals_referrer_idx` ON `referrals` (`referrer_user_id`,`status`);--> statement-breakpoint
CREATE TABLE `security_events` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`event_type` text NOT NULL,
	`user_id` integer,
	`target_user_id` integer,
	`ip_address` text,
	`user_agent` text,
	`session_id` text,
	`endpoint` text,
	`request_method` text,
	`response_status` integer,
	`details` text,
	`severity` text DEFAULT 'low' NOT NULL,
	`created_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null,
	FOREIGN KEY (`target_user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE INDEX `security_events_created_idx` ON `security_events` (`created_at`);--> statement-breakpoint
CREATE INDEX `security_events_type_created_idx` ON `security_events` (`event_type`,`created_at`);--> statement-breakpoint
CREATE INDEX `security_events_ip_idx` ON `security_events` (`ip_address`);--> statement-breakpoint
CREATE TABLE `security_rejections` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`timestamp` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL,
	`user_id` integer,
	`ip_address` text,
	`user_agent` text,
	`original_filename` text,
	`claimed_mime_type` text,
	`detected_file_type` text,
	`file_size_bytes` integer,
	`expected_header` text,
	`actual_header` text,
	`header_offset` integer,
	`threat_type` text,
	`threat_level` text,
	`attack_vector` text,
	`rejection_reason` text,
	`additional_signatures` text,
	`scan_metadata` text,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE INDEX `security_rejections_timestamp_idx` ON `security_rejections` (`timestamp`);--> statement-breakpoint
CREATE TABLE `send_ledger` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`folder_id` integer NOT NULL,
	`occurrence_key` text NOT NULL,
	`trigger` text NOT NULL,
	`status` text DEFAULT 'pending' NOT NULL,
	`item_ids` text DEFAULT '[]' NOT NULL,
	`claimed_by` text,
	`claimed_at` integer,
	`completed_at` integer,
	`created_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL,
	FOREIGN KEY (`folder_id`) REFERENCES `folders`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `send_ledger_folder_occurrence_uq` ON `send_ledger` (`folder_id`,`occurrence_key`);--> statement-breakpoint
CREATE INDEX `send_ledger_status_idx` ON `send_ledger` (`status`);--> statement-breakpoint
CREATE TABLE `send_ledger_recipients` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`ledger_id` integer NOT NULL,
	`email` text NOT NULL,
	`kind` text DEFAULT 'recipient' NOT NULL,
	`status` text DEFAULT 'pending' NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`next_attempt_at` integer,
	`last_error` text,
	`message_id` text,
	`sent_at` integer,
	FOREIGN KEY (`ledger_id`) REFERENCES `send_ledger`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `send_ledger_recipients_uq` ON `send_ledger_recipients` (`ledger_id`,`email`,`kind`);--> statement-breakpoint
CREATE TABLE `sessions` (
	`sid` text PRIMARY KEY NOT NULL,
	`user_id` integer NOT NULL,
	`sess` text DEFAULT '{}' NOT NULL,
	`expire` integer NOT NULL,
	`ip_address` text,
	`user_agent` text,
	`created_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `sessions_user_idx` ON `sessions` (`user_id`);--> statement-breakpoint
CREATE INDEX `sessions_expire_idx` ON `sessions` (`expire`);--> statement-breakpoint
CREATE TABLE `user_roles` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`user_id` integer NOT NULL,
	`role` text NOT NULL,
	`granted_by` integer,
	`granted_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL,
	`revoked_by` integer,
	`revoked_at` integer,
	`is_active` integer DEFAULT true NOT NULL,
	`grant_reason` text,
	`revoke_reason` text,
	`metadata` text,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`granted_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null,
	FOREIGN KEY (`revoked_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE INDEX `user_roles_user_idx` ON `user_roles` (`user_id`,`is_active`);--> statement-breakpoint
CREATE TABLE `users` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`email` text NOT NULL,
	`first_name` text,
	`last_name` text,
	`profile_image_url` text,
	`auth_provider` text DEFAULT 'password' NOT NULL,
	`auth_provider_id` text,
	`password_hash` text,
	`email_verified` integer DEFAULT false NOT NULL,
	`email_verification_token` text,
	`email_verification_expires_at` integer,
	`password_reset_token` text,
	`password_reset_expires_at` integer,
	`time_zone` text DEFAULT 'UTC' NOT NULL,
	`subscription_tier` text DEFAULT 'free' NOT NULL,
	`stripe_customer_id` text,
	`stripe_subscription_id` text,
	`subscription_status` text DEFAULT 'inactive' NOT NULL,
	`subscription_expires_at` integer,
	`created_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL,
	`updated_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `users_email_unique` ON `users` (`email`);