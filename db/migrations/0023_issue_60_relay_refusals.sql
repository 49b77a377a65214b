CREATE TABLE `relay_refusals` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`about` text NOT NULL,
	`ledger_id` integer,
	`stage` text NOT NULL,
	`answer` text NOT NULL,
	`refusals` integer DEFAULT 1 NOT NULL,
	`first_at` integer NOT NULL,
	`last_at` integer NOT NULL,
	`next_try_at` integer,
	`ended_at` integer,
	FOREIGN KEY (`ledger_id`) REFERENCES `send_ledger`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `relay_refusals_open_idx` ON `relay_refusals` (`about`,`ended_at`);--> statement-breakpoint
CREATE UNIQUE INDEX `relay_refusals_ledger_uq` ON `relay_refusals` (`ledger_id`);--> statement-breakpoint
CREATE INDEX `relay_refusals_last_idx` ON `relay_refusals` (`last_at`);