ALTER TABLE "answer_joins" ADD COLUMN "id_prefix" text;--> statement-breakpoint
ALTER TABLE "usage_rollups" ADD COLUMN "solved" bigint;--> statement-breakpoint
-- Cost per solved task by generator model: a task counts for the model that generated its
-- deciding candidate (the selected one, else the first), as written by write-rollups.ts in
-- usage_rollups.solved. The new columns go at the end (a view only ever gains columns);
-- they are NULL for the verifier's rows and for runs rolled up before this migration, which
-- did not record the model of the deciding candidate (their cost_per_solved still divides
-- by all of the run's solved tasks).
CREATE OR REPLACE VIEW "analyst_cost_by_model" AS
SELECT u.run_id, u.role, u.model,
       u.input_tokens, u.cached_input_tokens, u.cache_write_tokens, u.cache_write_1h_tokens,
       u.output_tokens, u.compute_ms,
       u.price_version, u.currency,
       ru.tasks, ru.solved,
       u.cost,
       u.cost / nullif(ru.solved, 0) AS cost_per_solved,
       CASE WHEN u.currency = 'USD' THEN u.cost END AS cost_usd,
       CASE WHEN u.currency = 'USD' THEN u.cost / nullif(ru.solved, 0) END AS cost_per_solved_usd,
       ur.solved AS model_solved,
       u.cost / nullif(ur.solved, 0) AS cost_per_model_solved,
       CASE WHEN u.currency = 'USD' THEN u.cost / nullif(ur.solved, 0) END
         AS cost_per_model_solved_usd
FROM analyst_usage_cost u
JOIN run_rollups ru ON ru.run_id = u.run_id
JOIN usage_rollups ur ON ur.run_id = u.run_id AND ur.role = u.role AND ur.model = u.model;
