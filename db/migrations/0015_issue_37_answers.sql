CREATE TABLE `answer_digests` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`user_id` integer NOT NULL,
	`key` text NOT NULL,
	`status` text DEFAULT 'pending' NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`next_attempt_at` integer,
	`created_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL,
	`sent_at` integer,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `answer_digests_user_key_uq` ON `answer_digests` (`user_id`,`key`);--> statement-breakpoint
CREATE INDEX `answer_digests_status_idx` ON `answer_digests` (`status`);--> statement-breakpoint
CREATE TABLE `item_answers` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`user_id` integer NOT NULL,
	`folder_id` integer NOT NULL,
	`ledger_id` integer NOT NULL,
	`copy_id` integer NOT NULL,
	`item_id` integer NOT NULL,
	`email` text NOT NULL,
	`kind` text NOT NULL,
	`body` text,
	`created_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL,
	`digest_id` integer,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`folder_id`) REFERENCES `folders`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`ledger_id`) REFERENCES `send_ledger`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`copy_id`) REFERENCES `send_ledger_recipients`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`item_id`) REFERENCES `content_items`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`digest_id`) REFERENCES `answer_digests`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE UNIQUE INDEX `item_answers_heart_uq` ON `item_answers` (`copy_id`,`item_id`) WHERE "item_answers"."kind" = 'heart';--> statement-breakpoint
CREATE INDEX `item_answers_ledger_idx` ON `item_answers` (`ledger_id`,`item_id`);--> statement-breakpoint
CREATE INDEX `item_answers_user_created_idx` ON `item_answers` (`user_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `item_answers_digest_idx` ON `item_answers` (`digest_id`);--> statement-breakpoint
ALTER TABLE `folders` ADD `answer_emails` text DEFAULT 'daily' NOT NULL;--> statement-breakpoint
ALTER TABLE `users` ADD `answers_seen_at` integer;