-- Rollups written before this counted refused calls among the cut ones. Dropping them makes
-- reports read those runs from their raw rows (the same figures, counted apart) until the
-- rollups are written again.
DELETE FROM "run_rollups";--> statement-breakpoint
ALTER TABLE "run_rollups" ADD COLUMN "truncation_refused" bigint[] NOT NULL;
