CREATE TABLE `webauthn_challenges` (
	`challenge` text PRIMARY KEY NOT NULL,
	`purpose` text NOT NULL,
	`user_id` integer,
	`expires_at` integer NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `webauthn_challenges_expires_idx` ON `webauthn_challenges` (`expires_at`);--> statement-breakpoint
ALTER TABLE `api_tokens` ADD `expires_at` integer;--> statement-breakpoint
ALTER TABLE `email_unsubscribes` ADD `mailbox` text DEFAULT '' NOT NULL;--> statement-breakpoint
CREATE INDEX `email_unsubscribes_mailbox_idx` ON `email_unsubscribes` (`mailbox`);--> statement-breakpoint
ALTER TABLE `folder_recipient_states` ADD `mailbox` text DEFAULT '' NOT NULL;--> statement-breakpoint
CREATE INDEX `folder_recipient_states_folder_mailbox_idx` ON `folder_recipient_states` (`folder_id`,`mailbox`);--> statement-breakpoint
ALTER TABLE `sessions` ADD `sign_in_method` text;--> statement-breakpoint
ALTER TABLE `sessions` ADD `reauthenticated_at` integer;--> statement-breakpoint
ALTER TABLE `sessions` ADD `reauthenticated_by` text;--> statement-breakpoint
ALTER TABLE `users` ADD `security_stamp` text DEFAULT '' NOT NULL;--> statement-breakpoint
-- Tokens made before expiry existed get the default lifetime (90 days) from today.
UPDATE `api_tokens` SET `expires_at` = cast((unixepoch('subsec') + 90 * 86400) * 1000 as integer) WHERE `expires_at` IS NULL;
--> statement-breakpoint
-- Data: every stored opt-out gets its mailbox key (app/modules/recipients/email-address.ts,
-- `mailboxKey`; app/modules/recipients/mailbox-migration.test.ts holds the two together). Stored addresses are
-- canonical already (migration 0004), so the key is the address with the local part cut before
-- its first "+" (unless the "+" comes first), and on gmail.com and googlemail.com also without
-- dots and on gmail.com. The address itself stays as typed.
UPDATE `email_unsubscribes` SET `mailbox` = `email`;
--> statement-breakpoint
UPDATE `email_unsubscribes` SET `mailbox` =
	substr(`mailbox`, 1, instr(`mailbox`, '+') - 1) || substr(`mailbox`, instr(`mailbox`, '@'))
WHERE instr(`mailbox`, '+') > 1 AND instr(`mailbox`, '+') < instr(`mailbox`, '@');
--> statement-breakpoint
UPDATE `email_unsubscribes` SET `mailbox` =
	replace(substr(`mailbox`, 1, instr(`mailbox`, '@') - 1), '.', '') || '@gmail.com'
WHERE substr(`mailbox`, instr(`mailbox`, '@') + 1) IN ('gmail.com', 'googlemail.com');
--> statement-breakpoint
UPDATE `folder_recipient_states` SET `mailbox` = `email`;
--> statement-breakpoint
UPDATE `folder_recipient_states` SET `mailbox` =
	substr(`mailbox`, 1, instr(`mailbox`, '+') - 1) || substr(`mailbox`, instr(`mailbox`, '@'))
WHERE instr(`mailbox`, '+') > 1 AND instr(`mailbox`, '+') < instr(`mailbox`, '@');
--> statement-breakpoint
UPDATE `folder_recipient_states` SET `mailbox` =
	replace(substr(`mailbox`, 1, instr(`mailbox`, '@') - 1), '.', '') || '@gmail.com'
WHERE substr(`mailbox`, instr(`mailbox`, '@') + 1) IN ('gmail.com', 'googlemail.com');
--> statement-breakpoint
-- One opt-out from everything per mailbox (the earliest), and one state per mailbox in a folder
-- where the opt-out wins: unsubscribed beats bounced, which beats active; then the older row.
DELETE FROM `email_unsubscribes` WHERE `id` NOT IN (
	SELECT min(`id`) FROM `email_unsubscribes` GROUP BY `mailbox`
);
--> statement-breakpoint
DELETE FROM `folder_recipient_states` WHERE EXISTS (
	SELECT 1 FROM `folder_recipient_states` AS `other`
	WHERE `other`.`folder_id` = `folder_recipient_states`.`folder_id`
		AND `other`.`mailbox` = `folder_recipient_states`.`mailbox`
		AND `other`.`id` <> `folder_recipient_states`.`id`
		AND (
			(CASE `other`.`status` WHEN 'unsubscribed' THEN 2 WHEN 'bounced' THEN 1 ELSE 0 END)
				> (CASE `folder_recipient_states`.`status` WHEN 'unsubscribed' THEN 2 WHEN 'bounced' THEN 1 ELSE 0 END)
			OR ((CASE `other`.`status` WHEN 'unsubscribed' THEN 2 WHEN 'bounced' THEN 1 ELSE 0 END)
				= (CASE `folder_recipient_states`.`status` WHEN 'unsubscribed' THEN 2 WHEN 'bounced' THEN 1 ELSE 0 END)
				AND `other`.`id` < `folder_recipient_states`.`id`)
		)
);
