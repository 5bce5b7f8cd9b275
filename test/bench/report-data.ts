import type { SqlRunner } from "@assay/store/reports";

/**
 * Fills one run server-side (generate_series, no rows through the client): `tasks` tasks
 * of 5 candidates, a verifier ("judge") and a check ("exact") score per candidate, a
 * generator and a verifier usage row per candidate, and a truncations row per verifier call.
 * Every 20th task's first candidate is a trajectory (`detail.progress`), for early stops.
 * random() is seeded, so every bench run sees the same data: `client` must be one
 * connection, not a pool.
 */
export async function seedBenchRun(
  client: SqlRunner,
  runId: string,
  tasks: number,
  startedAt: string,
): Promise<void> {
  const params = [runId, tasks];
  await client.query("SELECT setseed(0.42)");
  await client.query(
    `INSERT INTO runs (id, name, spec, transport, created_at) VALUES ($1, 'nightly', '{}', 'bench', $2)`,
    [runId, startedAt],
  );
  // Its raw tables' partitions, as Store.startRun makes them.
  await client.query("SELECT assay_create_run_partitions($1)", [runId]);
  await client.query(
    `INSERT INTO samples (run_id, sample_id, task_id, candidate_index, label, line, metadata)
     SELECT $1, 't' || t || '#' || c, 't' || t, c,
            CASE WHEN t % 3 = 0 THEN NULL ELSE random() < 0.45 END, t + 1, '{}'
     FROM generate_series(0, $2::int - 1) t, generate_series(0, 4) c`,
    params,
  );
  await client.query(
    `INSERT INTO scores (run_id, sample_id, scorer, rule, status, value, reason)
     SELECT $1, 't' || t || '#' || c, s.scorer, 'default',
            CASE WHEN r < s.unscored THEN 'unscored' ELSE 'scored' END,
            CASE WHEN r < s.unscored THEN NULL WHEN s.scorer = 'judge' THEN random() ELSE (random() < 0.4)::int END,
            CASE WHEN r >= s.unscored THEN NULL WHEN s.scorer = 'exact' THEN 'unparseable'
                 WHEN r < s.unscored / 2 THEN 'overflow' ELSE 'no_score_mass' END
     FROM generate_series(0, $2::int - 1) t, generate_series(0, 4) c,
          (VALUES ('judge', 0.02), ('exact', 0.01)) s(scorer, unscored),
          LATERAL (SELECT random() + 0 * t AS r) x`,
    params,
  );
  // Fresh statistics, or the planner takes the run's just-inserted rows for none.
  await client.query("ANALYZE samples, scores");
  await client.query(
    `UPDATE scores SET detail = jsonb_build_object('progress',
       jsonb_build_array(0.9, 0.8, 0.7, random(), random(), random()))
     WHERE run_id = $1 AND scorer = 'judge' AND status = 'scored'
       AND sample_id IN (SELECT 't' || t || '#0' FROM generate_series(0, $2::int - 1, 20) t)`,
    params,
  );
  // Verifier prompts spread over 200..11,000 tokens (log-uniform); above 6,000 they were
  // cut to 6,000. Like the pipeline, every call gets a truncations row, cut or not.
  await client.query(
    `INSERT INTO truncations (run_id, sample_id, scorer, original_tokens, kept_tokens, dropped_tokens, slot, policy)
     SELECT $1, 't' || t || '#' || c, 'judge', n, least(n, 6000), greatest(0, n - 6000),
            CASE WHEN n > 6000 THEN 'answer' ELSE '' END, 'keep-answer-tail'
     FROM generate_series(0, $2::int - 1) t, generate_series(0, 4) c,
          LATERAL (SELECT floor(200 * exp(random() * 4))::int + 0 * t AS n) x`,
    params,
  );
  await client.query(
    `INSERT INTO usage (run_id, sample_id, role, model, input_tokens, cached_input_tokens, output_tokens, compute_ms, device, scorer)
     SELECT $1, sample_id, 'generator', 'deepseek-v4-flash', 800, 200, 600, NULL, NULL, ''
     FROM truncations WHERE run_id = $1
     UNION ALL
     SELECT $1, sample_id, 'verifier', 'qwen3-verifier', kept_tokens, 0, 0, 5 + random() * 20, 'cuda:0', 'judge'
     FROM truncations WHERE run_id = $1`,
    [runId],
  );
}

/**
 * Best-of-N on the judge's value for every task of the run, in one statement, so a bench
 * of many runs need not run selection on each (the reported run uses selectForRun).
 * Correct: the label, else the exact check.
 */
export async function seedBenchSelections(client: SqlRunner, runId: string): Promise<void> {
  await client.query("ANALYZE samples, scores");
  await client.query(
    `WITH c AS (
       SELECT sm.task_id, sm.sample_id, sm.candidate_index,
              coalesce(sm.label, e.value >= 0.5) AS correct, j.value AS judge,
              count(*) OVER (PARTITION BY sm.task_id) AS candidates
       FROM samples sm
       LEFT JOIN scores j ON j.run_id = sm.run_id AND j.sample_id = sm.sample_id AND j.scorer = 'judge'
       LEFT JOIN scores e ON e.run_id = sm.run_id AND e.sample_id = sm.sample_id AND e.scorer = 'exact'
       WHERE sm.run_id = $1
     ), per_task AS (
       SELECT task_id, max(candidates) AS candidates,
              bool_or(correct) FILTER (WHERE candidate_index = 0) AS first_correct,
              bool_or(correct) AS any_correct
       FROM c GROUP BY task_id
     ), pick AS (
       SELECT DISTINCT ON (task_id) task_id, sample_id, candidate_index, correct
       FROM c WHERE judge IS NOT NULL ORDER BY task_id, judge DESC, candidate_index
     )
     INSERT INTO selections (run_id, task_id, method, candidates, selected_index, selected_sample_id,
                             tie, discrete_tie, tie_break, selected_correct, first_correct, any_correct, detail)
     SELECT $1, t.task_id, 'best_of_n', t.candidates, p.candidate_index, p.sample_id, false, NULL,
            NULL, p.correct, t.first_correct, t.any_correct, '{}'
     FROM per_task t LEFT JOIN pick p USING (task_id)`,
    [runId],
  );
}
