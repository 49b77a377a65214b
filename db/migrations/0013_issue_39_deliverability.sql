CREATE TABLE `delivery_reports` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`source` text NOT NULL,
	`source_event_id` text NOT NULL,
	`ledger_recipient_id` integer,
	`sender_user_id` integer,
	`folder_id` integer,
	`email` text NOT NULL,
	`mailbox` text NOT NULL,
	`kind` text NOT NULL,
	`detail` text,
	`occurred_at` integer NOT NULL,
	`created_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL,
	FOREIGN KEY (`ledger_recipient_id`) REFERENCES `send_ledger_recipients`(`id`) ON UPDATE no action ON DELETE set null,
	FOREIGN KEY (`sender_user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`folder_id`) REFERENCES `folders`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE UNIQUE INDEX `delivery_reports_source_event_uq` ON `delivery_reports` (`source`,`source_event_id`);--> statement-breakpoint
CREATE INDEX `delivery_reports_sender_idx` ON `delivery_reports` (`sender_user_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `delivery_reports_mailbox_idx` ON `delivery_reports` (`mailbox`,`created_at`);--> statement-breakpoint
CREATE TABLE `mailbox_suppressions` (
	`mailbox` text PRIMARY KEY NOT NULL,
	`email` text NOT NULL,
	`reason` text NOT NULL,
	`suppressed_until` integer,
	`report_id` integer,
	`created_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL,
	`updated_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL,
	FOREIGN KEY (`report_id`) REFERENCES `delivery_reports`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
ALTER TABLE `users` ADD `sending_paused_at` integer;--> statement-breakpoint
ALTER TABLE `users` ADD `sending_paused_reason` text;