ALTER TABLE "answer_staging" ADD COLUMN "cache_write_1h_tokens" integer;--> statement-breakpoint
ALTER TABLE "prices" ADD COLUMN "cache_write_1h_per_million" double precision;--> statement-breakpoint
ALTER TABLE "usage" ADD COLUMN "cache_write_1h_tokens" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "usage_rollups" ADD COLUMN "cache_write_1h_tokens" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
-- 1-hour prompt-cache writes (Anthropic's ephemeral_1h_input_tokens) are part of
-- cache_write_tokens and priced at the version's cache_write_1h_per_million, else its
-- cache-write price, else its input price; the rest of cache_write_tokens are 5-minute
-- writes, as `assay report --prices` prices them (usage-cost.ts). The new column goes at
-- the end: a view only ever gains columns.
CREATE OR REPLACE VIEW "analyst_usage_cost" AS
SELECT u.run_id, u.role, u.model, u.input_tokens, u.cached_input_tokens, u.output_tokens,
       u.compute_ms, rp.price_version, rp.currency,
       CASE
         WHEN p.model IS NULL THEN NULL
         WHEN p.gpu_hour IS NOT NULL AND u.compute_ms IS NULL THEN NULL
         ELSE (u.input_tokens * coalesce(p.input_per_million, 0)
               + u.cached_input_tokens * coalesce(p.cached_input_per_million, p.input_per_million, 0)
               + (u.cache_write_tokens - least(u.cache_write_1h_tokens, u.cache_write_tokens))
                 * coalesce(p.cache_write_per_million, p.input_per_million, 0)
               + least(u.cache_write_1h_tokens, u.cache_write_tokens)
                 * coalesce(p.cache_write_1h_per_million, p.cache_write_per_million,
                            p.input_per_million, 0)
               + u.output_tokens * coalesce(p.output_per_million, 0)) / 1000000
              + coalesce(u.compute_ms / 3600000 * p.gpu_hour, 0)
       END AS cost,
       u.cache_write_tokens,
       u.cache_write_1h_tokens
FROM usage_rollups u
JOIN analyst_run_prices rp ON rp.run_id = u.run_id
LEFT JOIN prices p ON p.version = rp.price_version AND p.model = u.model;
--> statement-breakpoint
-- One row per rolled-up run and (role, model): each generator model's and the verifier's
-- tokens and cost, and that cost per solved task of the run. The rollups do not record
-- which model's answer solved a task: a run with several generator models divides each
-- one's cost by all of the run's solved tasks.
CREATE VIEW "analyst_cost_by_model" AS
SELECT u.run_id, u.role, u.model,
       u.input_tokens, u.cached_input_tokens, u.cache_write_tokens, u.cache_write_1h_tokens,
       u.output_tokens, u.compute_ms,
       u.price_version, u.currency,
       ru.tasks, ru.solved,
       u.cost,
       u.cost / nullif(ru.solved, 0) AS cost_per_solved,
       CASE WHEN u.currency = 'USD' THEN u.cost END AS cost_usd,
       CASE WHEN u.currency = 'USD' THEN u.cost / nullif(ru.solved, 0) END AS cost_per_solved_usd
FROM analyst_usage_cost u
JOIN run_rollups ru ON ru.run_id = u.run_id;
--> statement-breakpoint
-- The analysts' read access, as migration 0010 gave it, on the new view.
DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'assay_analyst') THEN
    EXECUTE format('GRANT SELECT ON %I.%I TO assay_analyst', current_schema(), 'analyst_cost_by_model');
  END IF;
END
$$;
