ALTER TABLE `email_deliveries` ADD `ledger_id` integer REFERENCES send_ledger(id) ON DELETE cascade;--> statement-breakpoint
CREATE INDEX `email_deliveries_ledger_idx` ON `email_deliveries` (`ledger_id`,`recipient_email`);--> statement-breakpoint
ALTER TABLE `send_ledger` ADD `tracked` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `send_ledger` ADD `deleted_at` integer;