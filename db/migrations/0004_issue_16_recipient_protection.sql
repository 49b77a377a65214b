CREATE TABLE `resubscribe_refusals` (
	`email` text PRIMARY KEY NOT NULL,
	`refused_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL
);
--> statement-breakpoint
CREATE TABLE `resubscribe_requests` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`sender_user_id` integer NOT NULL,
	`email` text NOT NULL,
	`folder_id` integer,
	`requested_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL,
	FOREIGN KEY (`sender_user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`folder_id`) REFERENCES `folders`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE INDEX `resubscribe_requests_email_idx` ON `resubscribe_requests` (`email`,`requested_at`);--> statement-breakpoint
CREATE INDEX `resubscribe_requests_sender_idx` ON `resubscribe_requests` (`sender_user_id`,`email`);--> statement-breakpoint
-- Data: every stored recipient address in its canonical form (app/utils/email-address.ts).
-- Here in SQL: surrounding spaces, case, and a display name or brackets around the address
-- ("Name <a@b.c>" becomes a@b.c). Domains with non-ASCII letters need IDNA, which SQLite
-- lacks: canonicalizeStoredAddresses() rewrites those rows when the server starts.
-- Where two spellings of one address meet, the opt-out wins: the earliest "everything" row
-- is kept, and in a folder an unsubscribed row beats a bounced one, which beats an active one.
DELETE FROM `email_unsubscribes` WHERE `id` NOT IN (
	SELECT min(`id`) FROM `email_unsubscribes` GROUP BY
		CASE WHEN instr(`email`, '<') > 0 AND instr(`email`, '>') > instr(`email`, '<')
			THEN lower(trim(substr(`email`, instr(`email`, '<') + 1, instr(`email`, '>') - instr(`email`, '<') - 1)))
			ELSE lower(trim(`email`)) END
);
--> statement-breakpoint
UPDATE `email_unsubscribes` SET `email` =
	CASE WHEN instr(`email`, '<') > 0 AND instr(`email`, '>') > instr(`email`, '<')
		THEN lower(trim(substr(`email`, instr(`email`, '<') + 1, instr(`email`, '>') - instr(`email`, '<') - 1)))
		ELSE lower(trim(`email`)) END;
--> statement-breakpoint
DELETE FROM `folder_recipient_states` WHERE EXISTS (
	SELECT 1 FROM `folder_recipient_states` AS `other`
	WHERE `other`.`folder_id` = `folder_recipient_states`.`folder_id`
		AND `other`.`id` <> `folder_recipient_states`.`id`
		AND (CASE WHEN instr(`other`.`email`, '<') > 0 AND instr(`other`.`email`, '>') > instr(`other`.`email`, '<')
				THEN lower(trim(substr(`other`.`email`, instr(`other`.`email`, '<') + 1, instr(`other`.`email`, '>') - instr(`other`.`email`, '<') - 1)))
				ELSE lower(trim(`other`.`email`)) END)
			= (CASE WHEN instr(`folder_recipient_states`.`email`, '<') > 0 AND instr(`folder_recipient_states`.`email`, '>') > instr(`folder_recipient_states`.`email`, '<')
				THEN lower(trim(substr(`folder_recipient_states`.`email`, instr(`folder_recipient_states`.`email`, '<') + 1, instr(`folder_recipient_states`.`email`, '>') - instr(`folder_recipient_states`.`email`, '<') - 1)))
				ELSE lower(trim(`folder_recipient_states`.`email`)) END)
		AND (
			(CASE `other`.`status` WHEN 'unsubscribed' THEN 2 WHEN 'bounced' THEN 1 ELSE 0 END)
				> (CASE `folder_recipient_states`.`status` WHEN 'unsubscribed' THEN 2 WHEN 'bounced' THEN 1 ELSE 0 END)
			OR ((CASE `other`.`status` WHEN 'unsubscribed' THEN 2 WHEN 'bounced' THEN 1 ELSE 0 END)
				= (CASE `folder_recipient_states`.`status` WHEN 'unsubscribed' THEN 2 WHEN 'bounced' THEN 1 ELSE 0 END)
				AND `other`.`id` < `folder_recipient_states`.`id`)
		)
);
--> statement-breakpoint
UPDATE `folder_recipient_states` SET `email` =
	CASE WHEN instr(`email`, '<') > 0 AND instr(`email`, '>') > instr(`email`, '<')
		THEN lower(trim(substr(`email`, instr(`email`, '<') + 1, instr(`email`, '>') - instr(`email`, '<') - 1)))
		ELSE lower(trim(`email`)) END;
--> statement-breakpoint
UPDATE `folders` SET `recipients` = (
	SELECT json_group_array(json_object(
		'name', json_extract(`r`.`value`, '$.name'),
		'email', CASE WHEN instr(json_extract(`r`.`value`, '$.email'), '<') > 0
				AND instr(json_extract(`r`.`value`, '$.email'), '>') > instr(json_extract(`r`.`value`, '$.email'), '<')
			THEN lower(trim(substr(json_extract(`r`.`value`, '$.email'),
				instr(json_extract(`r`.`value`, '$.email'), '<') + 1,
				instr(json_extract(`r`.`value`, '$.email'), '>') - instr(json_extract(`r`.`value`, '$.email'), '<') - 1)))
			ELSE lower(trim(json_extract(`r`.`value`, '$.email'))) END
	))
	FROM json_each(`folders`.`recipients`) AS `r`
) WHERE json_array_length(`recipients`) > 0;
--> statement-breakpoint
UPDATE `folders` SET
	`recipient_email` = CASE WHEN instr(`recipient_email`, '<') > 0 AND instr(`recipient_email`, '>') > instr(`recipient_email`, '<')
		THEN lower(trim(substr(`recipient_email`, instr(`recipient_email`, '<') + 1, instr(`recipient_email`, '>') - instr(`recipient_email`, '<') - 1)))
		ELSE lower(trim(`recipient_email`)) END,
	`recipient_email_2` = CASE WHEN instr(`recipient_email_2`, '<') > 0 AND instr(`recipient_email_2`, '>') > instr(`recipient_email_2`, '<')
		THEN lower(trim(substr(`recipient_email_2`, instr(`recipient_email_2`, '<') + 1, instr(`recipient_email_2`, '>') - instr(`recipient_email_2`, '<') - 1)))
		ELSE lower(trim(`recipient_email_2`)) END
WHERE `recipient_email` IS NOT NULL OR `recipient_email_2` IS NOT NULL;
