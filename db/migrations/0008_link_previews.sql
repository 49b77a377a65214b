ALTER TABLE `content_items` ADD `preview_status` text;--> statement-breakpoint
ALTER TABLE `content_items` ADD `preview_url` text;--> statement-breakpoint
ALTER TABLE `content_items` ADD `preview_title` text;--> statement-breakpoint
ALTER TABLE `content_items` ADD `preview_description` text;--> statement-breakpoint
ALTER TABLE `content_items` ADD `preview_site_name` text;--> statement-breakpoint
ALTER TABLE `content_items` ADD `preview_image_key` text;--> statement-breakpoint
ALTER TABLE `content_items` ADD `preview_image_size` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `content_items` ADD `preview_attempts` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `content_items` ADD `preview_next_attempt_at` integer;--> statement-breakpoint
CREATE INDEX `content_items_preview_status_idx` ON `content_items` (`preview_status`);