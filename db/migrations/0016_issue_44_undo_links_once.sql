CREATE TABLE `undo_link_uses` (
	`link_hash` text PRIMARY KEY NOT NULL,
	`user_id` integer NOT NULL,
	`used_at` integer NOT NULL,
	`credential_removed` integer DEFAULT false NOT NULL,
	`expires_at` integer NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
