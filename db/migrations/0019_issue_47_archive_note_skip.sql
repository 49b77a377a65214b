ALTER TABLE `folders` ADD `issue_note` text;--> statement-breakpoint
ALTER TABLE `folders` ADD `skipped_send_at` integer;--> statement-breakpoint
ALTER TABLE `send_ledger` ADD `issue_note` text;