ALTER TABLE `send_ledger` ADD `lease_expires_at` integer;--> statement-breakpoint
-- Data: a finished ledger carries no claim (a kill between finishing and releasing left some).
UPDATE `send_ledger` SET `claimed_by` = NULL, `claimed_at` = NULL WHERE `status` <> 'sending';--> statement-breakpoint
-- Data: a claim taken before leases keeps the 5 minutes it was promised from when it was taken.
UPDATE `send_ledger` SET `lease_expires_at` = `claimed_at` + 300000 WHERE `status` = 'sending' AND `claimed_at` IS NOT NULL;
