-- analyst-views version: 1
-- Raise the version with every change to this file (analyst-views-file.test.ts records
-- each version's sha256 and fails until both are updated).
--
-- The analyst views as they are now: the one place to read or change them
-- (docs/analyst-views.md documents every column). The store applies this file after the
-- numbered migrations, in one transaction, when the version it last applied
-- (analyst_views_applied) is older: `assay migrate` on a server, every open of an embedded
-- store. A store a newer version wrote keeps that version's views, so an older worker or
-- reader still running beside it works on. Migrations 0010 to 0021 hold the earlier
-- definitions.
--
-- Each view reads a finished run's rollups where they exist, so it answers in a few index
-- reads however many score rows a run has; a run without rollups (still running) shows NULL
-- figures. CREATE OR REPLACE VIEW only lets a view gain columns at its end, which is the
-- rule dashboards rely on: never rename, retype or drop a column. A view that depends on
-- another comes after it. A new view is granted to assay_analyst at the end of this file.

CREATE OR REPLACE VIEW "analyst_runs" AS
SELECT r.id AS run_id,
       r.name,
       r.dataset,
       r.dataset_path,
       r.created_at AS started_at,
       r.finished_at AS completed_at,
       CASE WHEN r.finished_at IS NULL THEN 'running' ELSE 'completed' END AS status,
       ru.run_id IS NOT NULL AS rolled_up,
       ru.samples,
       ru.tasks,
       ru.results,
       (SELECT count(*) FROM input_errors e WHERE e.run_id = r.id) AS input_errors,
       r.has_selection,
       r.solved_by,
       r.pass_threshold,
       r.pass_thresholds,
       ru.solved,
       ru.solved::float8 / nullif(ru.tasks, 0) AS solved_rate
FROM runs r LEFT JOIN run_rollups ru ON ru.run_id = r.id;

CREATE OR REPLACE VIEW "analyst_scorer_results" AS
SELECT p.run_id,
       p.scorer,
       p.scored,
       p.unscored,
       (m.summary ->> 'sum')::float8 / nullif(p.scored, 0) AS mean_value,
       p.passed,
       p.passed::float8 / nullif(p.scored, 0) AS pass_rate,
       'value >= ' || p.threshold::text AS pass_rule,
       p.threshold
FROM pass_rollups p
LEFT JOIN summary_rollups m
  ON m.run_id = p.run_id AND m.kind = 'scorer_moments' AND m.summary ->> 'scorer' = p.scorer;

-- The price version in force when each run started: the newest version whose
-- effective_from is at or before the run's created_at (of two with one date, the later import).
CREATE OR REPLACE VIEW "analyst_run_prices" AS
SELECT r.id AS run_id, v.version AS price_version, v.currency, v.effective_from, v.source
FROM runs r
LEFT JOIN LATERAL (
  SELECT version, currency, effective_from, source FROM price_versions
  WHERE effective_from <= r.created_at
  ORDER BY effective_from DESC, version DESC LIMIT 1
) v ON true;

-- Each usage rollup row priced as `assay report --prices` prices it (usage-cost.ts): input
-- tokens are the uncached ones, cached tokens at the cached price (else the input price),
-- prompt-cache writes at the cache-write price (else the input price), of which the 1-hour
-- writes (Anthropic's ephemeral_1h_input_tokens, part of cache_write_tokens) at the 1-hour
-- price (else the cache-write price, else the input price), plus measured compute at the
-- GPU-hour price. NULL when the model has no price in the version, or it has a GPU-hour
-- price and no compute time was measured.
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

-- A role's cost is unknown (NULL) when it has no usage or any of its rows is unpriced: a
-- wrong 0 would flatter the run. A run that planned no model call (no verifier, no pairwise
-- judge) spent nothing on verification: 0, not unknown (NULL for runs made before
-- planned_model_results was recorded). cost_usd is the cost when the version's currency is USD.
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

-- Every verifier prompt that was cut to fit or refused, with the sample it belongs to and
-- where its text lies (the dataset file and line).
CREATE OR REPLACE VIEW "analyst_truncations" AS
SELECT t.run_id, t.sample_id, x.task_id, x.candidate_index, x.line, r.dataset_path,
       t.scorer, t.criterion, t.repetition, t.original_tokens, t.kept_tokens,
       t.dropped_tokens, t.slot, t.policy,
       t.kept_tokens = 0 AS refused
FROM truncations t
JOIN samples x ON x.run_id = t.run_id AND x.sample_id = t.sample_id
JOIN runs r ON r.id = t.run_id
WHERE t.dropped_tokens > 0 OR t.kept_tokens = 0;

-- pass@1, verifier-selected and oracle over the same tasks, for runs with a selection.
CREATE OR REPLACE VIEW "analyst_selection" AS
SELECT ru.run_id, ru.methods, ru.tasks, ru.selected_tasks, ru.unselected, ru.counted,
       ru.pass1, ru.pass1::float8 / nullif(ru.counted, 0) AS pass1_rate,
       ru.selected, ru.selected::float8 / nullif(ru.counted, 0) AS selected_rate,
       ru.oracle, ru.oracle::float8 / nullif(ru.counted, 0) AS oracle_rate,
       ru.ties, ru.ties::float8 / nullif(ru.selected_tasks, 0) AS tie_rate
FROM run_rollups ru JOIN runs r ON r.id = ru.run_id
WHERE r.has_selection;

-- A run's headline figures, ranked newest first (1 = newest) among the runs of its dataset
-- and among the runs of its name: `WHERE dataset_rank <= 10` is the last ten.
CREATE OR REPLACE VIEW "analyst_run_trend" AS
SELECT r.id AS run_id, r.name, r.dataset, r.created_at AS started_at,
       row_number() OVER (PARTITION BY r.dataset ORDER BY r.created_at DESC, r.id DESC)
         AS dataset_rank,
       row_number() OVER (PARTITION BY r.name ORDER BY r.created_at DESC, r.id DESC)
         AS name_rank,
       ru.tasks, ru.solved, ru.solved::float8 / nullif(ru.tasks, 0) AS solved_rate,
       ru.pass1::float8 / nullif(ru.counted, 0) AS pass1_rate,
       ru.selected::float8 / nullif(ru.counted, 0) AS selected_rate,
       ru.oracle::float8 / nullif(ru.counted, 0) AS oracle_rate,
       (SELECT sum(n) FROM unnest(ru.truncation_cut) n)::float8
         / nullif((SELECT sum(n) FROM unnest(ru.truncation_calls) n), 0) AS truncation_rate,
       (SELECT coalesce(sum(u.count), 0) FROM unscored_rollups u WHERE u.run_id = r.id)::float8
         / nullif(ru.results, 0) AS unscored_rate
FROM runs r JOIN run_rollups ru ON ru.run_id = r.id;

CREATE OR REPLACE VIEW "analyst_input_errors" AS
SELECT e.run_id, e.file, e.line, e.field, e.message, e.created_at
FROM input_errors e;

-- Question and answer text are not stored: each sample names the dataset file and line
-- that hold them (the run's dataset_sha256 says whether the file is still the one read).
-- A LEFT JOIN, though every sample has its run (a sample goes into its run's partition):
-- a query that reads no column of runs, such as count(*), then skips the join altogether
-- (about half the time of count(*) over 1M samples).
CREATE OR REPLACE VIEW "analyst_samples" AS
SELECT x.run_id, x.sample_id, x.task_id, x.candidate_index, x.label, x.line,
       r.dataset_path, r.dataset_sha256, x.metadata
FROM samples x LEFT JOIN runs r ON r.id = x.run_id;

-- One row per rolled-up run and (role, model): each generator model's and the verifier's
-- tokens and cost, that cost per solved task of the run, and per task that model solved: a
-- task counts for the model that generated its deciding candidate (the selected one, else
-- the first), as write-rollups.ts writes usage_rollups.solved. The model_solved columns are
-- NULL for the verifier's rows and for runs rolled up before that was recorded.
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

-- The analysts' read access to every view above (the role and its grants on the tables are
-- migration 0010's). A server whose migrating user could not create the role has none.
DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'assay_analyst') THEN
    EXECUTE format(
      'GRANT SELECT ON %s TO assay_analyst',
      (SELECT string_agg(format('%I.%I', current_schema(), v), ', ') FROM unnest(ARRAY[
        'analyst_runs', 'analyst_scorer_results', 'analyst_run_prices', 'analyst_usage_cost',
        'analyst_cost_per_solved', 'analyst_truncations', 'analyst_selection',
        'analyst_run_trend', 'analyst_input_errors', 'analyst_samples', 'analyst_cost_by_model'
      ]) AS v));
  END IF;
END
$$;
