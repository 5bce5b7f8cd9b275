-- The answer join "as billed": failed lines a retry answered are counted apart
-- (retried_failures), and the tokens of answer lines that joined no row (unmatched,
-- duplicate) are kept per model (unjoined_usage), so `assay report` shows what they cost.
ALTER TABLE "answer_joins" ADD COLUMN "retried_failures" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "answer_joins" ADD COLUMN "unjoined_usage" jsonb DEFAULT '[]'::jsonb NOT NULL;
