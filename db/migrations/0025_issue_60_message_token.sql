-- SQLite adds a NOT NULL column only with a default; every insert gives its own token
-- through the schema (db/schema.ts), so the '' is never a send's.
ALTER TABLE `send_ledger` ADD `message_token` text DEFAULT '' NOT NULL;--> statement-breakpoint
-- Data: a send opened before tokens keeps its id as its token, so a copy it still sends carries
-- the Message-ID its other copies went out with (send-<id>-…). Every later send's is random.
UPDATE `send_ledger` SET `message_token` = CAST(`id` AS TEXT);--> statement-breakpoint
CREATE UNIQUE INDEX `send_ledger_message_token_uq` ON `send_ledger` (`message_token`);
