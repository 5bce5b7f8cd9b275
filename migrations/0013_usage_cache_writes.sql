ALTER TABLE "answer_staging" ADD COLUMN "cache_write_tokens" integer;--> statement-breakpoint
ALTER TABLE "usage" ADD COLUMN "cache_write_tokens" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "usage_rollups" ADD COLUMN "cache_write_tokens" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
-- Prompt-cache writes are priced at the version's cache_write_per_million, else at the
-- input price, as `assay report --prices` prices them (usage-cost.ts). The new column goes
-- at the end: a view only ever gains columns.
CREATE OR REPLACE VIEW "analyst_usage_cost" AS
SELECT u.run_id, u.role, u.model, u.input_tokens, u.cached_input_tokens, u.output_tokens,
       u.compute_ms, rp.price_version, rp.currency,
       CASE
         WHEN p.model IS NULL THEN NULL
         WHEN p.gpu_hour IS NOT NULL AND u.compute_ms IS NULL THEN NULL
         ELSE (u.input_tokens * coalesce(p.input_per_million, 0)
               + u.cached_input_tokens * coalesce(p.cached_input_per_million, p.input_per_million, 0)
               + u.cache_write_tokens * coalesce(p.cache_write_per_million, p.input_per_million, 0)
               + u.output_tokens * coalesce(p.output_per_million, 0)) / 1000000
              + coalesce(u.compute_ms / 3600000 * p.gpu_hour, 0)
       END AS cost,
       u.cache_write_tokens
FROM usage_rollups u
JOIN analyst_run_prices rp ON rp.run_id = u.run_id
LEFT JOIN prices p ON p.version = rp.price_version AND p.model = u.model;
