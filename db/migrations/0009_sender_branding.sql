CREATE TABLE `sender_branding` (
	`user_id` integer PRIMARY KEY NOT NULL,
	`template` text DEFAULT 'classic' NOT NULL,
	`accent_color` text,
	`header_image` blob,
	`header_image_type` text,
	`header_image_width` integer,
	`header_image_height` integer,
	`updated_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
