CREATE TABLE `one_time_keys` (
	`user_id` integer NOT NULL,
	`key` text NOT NULL,
	`location` text NOT NULL,
	`created_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL,
	PRIMARY KEY(`user_id`, `key`),
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `one_time_keys_created_idx` ON `one_time_keys` (`created_at`);