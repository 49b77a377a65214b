CREATE TABLE `deleted_items` (
	`item_id` integer PRIMARY KEY NOT NULL,
	`user_id` integer NOT NULL,
	`folder_id` integer NOT NULL,
	`item` text NOT NULL,
	`file_keys` text DEFAULT '[]' NOT NULL,
	`deleted_at` integer NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`folder_id`) REFERENCES `folders`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `deleted_items_deleted_at_idx` ON `deleted_items` (`deleted_at`);