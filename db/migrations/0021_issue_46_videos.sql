ALTER TABLE `content_items` ADD `video_status` text;--> statement-breakpoint
ALTER TABLE `content_items` ADD `video_progress` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `content_items` ADD `video_error` text;--> statement-breakpoint
ALTER TABLE `content_items` ADD `video_attempts` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `content_items` ADD `video_next_attempt_at` integer;--> statement-breakpoint
ALTER TABLE `content_items` ADD `video_duration_ms` integer;