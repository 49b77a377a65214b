DROP INDEX `waiting_reminders_folder_occurrence_uq`;--> statement-breakpoint
ALTER TABLE `waiting_reminders` ADD `kind` text DEFAULT 'note' NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX `waiting_reminders_folder_occurrence_kind_uq` ON `waiting_reminders` (`folder_id`,`occurrence_key`,`kind`);