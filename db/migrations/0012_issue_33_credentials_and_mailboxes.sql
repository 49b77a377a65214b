CREATE TABLE `webauthn_challenges` (
	`challenge` text PRIMARY KEY NOT NULL,
	`purpose` text NOT NULL,
	`user_id` integer,
	`expires_at` integer NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `webauthn_challenges_expires_idx` ON `webauthn_challenges` (`expires_at`);--> statement-breakpoint
ALTER TABLE `api_tokens` ADD `expires_at` integer;--> statement-breakpoint
ALTER TABLE `email_unsubscribes` ADD `mailbox` text DEFAULT '' NOT NULL;--> statement-breakpoint
CREATE INDEX `email_unsubscribes_mailbox_idx` ON `email_unsubscribes` (`mailbox`);--> statement-breakpoint
ALTER TABLE `folder_recipient_states` ADD `mailbox` text DEFAULT '' NOT NULL;--> statement-breakpoint
CREATE INDEX `folder_recipient_states_folder_mailbox_idx` ON `folder_recipient_states` (`folder_id`,`mailbox`);--> statement-breakpoint
ALTER TABLE `sessions` ADD `sign_in_method` text;--> statement-breakpoint
ALTER TABLE `sessions` ADD `reauthenticated_at` integer;--> statement-breakpoint
ALTER TABLE `sessions` ADD `reauthenticated_by` text;--> statement-breakpoint
ALTER TABLE `users` ADD `security_stamp` text DEFAULT '' NOT NULL;--> statement-breakpoint
-- Tokens made before expiry existed get the default lifetime (90 days) from today.
UPDATE `api_tokens` SET `expires_at` = cast((unixepoch('subsec') + 90 * 86400) * 1000 as integer) WHERE `expires_at` IS NULL;
