ALTER TABLE "runs" ADD COLUMN "planned_model_results" bigint;--> statement-breakpoint
-- A run that planned no model call (no verifier, no pairwise judge) spent nothing on
-- verification: its verification cost is 0, not unknown, so its total cost and cost per
-- solved task are known. Runs made before planned_model_results was recorded stay NULL.
CREATE OR REPLACE VIEW "analyst_cost_per_solved" AS
SELECT r.id AS run_id,
       c.generator_model,
       ru.tasks,
       ru.solved,
       rp.price_version,
       rp.currency,
       c.generation_cost,
       c.verification_cost,
       c.generation_cost + c.verification_cost AS cost,
       (c.generation_cost + c.verification_cost) / nullif(ru.solved, 0) AS cost_per_solved,
       CASE WHEN rp.currency = 'USD' THEN c.generation_cost + c.verification_cost END AS cost_usd,
       CASE WHEN rp.currency = 'USD'
            THEN (c.generation_cost + c.verification_cost) / nullif(ru.solved, 0) END
         AS cost_per_solved_usd
FROM runs r
JOIN run_rollups ru ON ru.run_id = r.id
JOIN analyst_run_prices rp ON rp.run_id = r.id
LEFT JOIN LATERAL (
  SELECT string_agg(DISTINCT u.model, ', ' ORDER BY u.model) FILTER (WHERE u.role = 'generator')
           AS generator_model,
         CASE WHEN count(*) FILTER (WHERE u.role = 'generator') > 0
                   AND bool_and(u.cost IS NOT NULL) FILTER (WHERE u.role = 'generator')
              THEN sum(u.cost) FILTER (WHERE u.role = 'generator') END AS generation_cost,
         CASE WHEN count(*) FILTER (WHERE u.role = 'verifier') > 0
                   AND bool_and(u.cost IS NOT NULL) FILTER (WHERE u.role = 'verifier')
              THEN sum(u.cost) FILTER (WHERE u.role = 'verifier')
              WHEN count(*) FILTER (WHERE u.role = 'verifier') = 0
                   AND r.planned_model_results = 0
              THEN 0 END AS verification_cost
  FROM analyst_usage_cost u WHERE u.run_id = r.id
) c ON true;
