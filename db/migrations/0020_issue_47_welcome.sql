CREATE TABLE `recipient_welcomes` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`folder_id` integer NOT NULL,
	`email` text NOT NULL,
	`mailbox` text NOT NULL,
	`status` text DEFAULT 'pending' NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`next_attempt_at` integer,
	`created_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL,
	`sent_at` integer,
	`answer` text,
	`answered_at` integer,
	FOREIGN KEY (`folder_id`) REFERENCES `folders`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `recipient_welcomes_folder_mailbox_uq` ON `recipient_welcomes` (`folder_id`,`mailbox`);--> statement-breakpoint
CREATE INDEX `recipient_welcomes_status_idx` ON `recipient_welcomes` (`status`);