import type { SqlRunner } from "@assay/store/reports";

/**
 * Fills one run server-side (generate_series, no rows through the client): `tasks` tasks of
 * `candidates` candidates, each with a verifier ("judge") row carrying a three-level score
 * distribution, as the distribution head stores it, and a check ("exact") row. Scores sit
 * on a 1/20 grid so ties at the top are common; 2% of judge and 1% of exact rows are
 * unscored; a third of the tasks have no labels. Each judge row carries the discrete level
 * the store stores beside it, unless `leveled` is false: then the rows look as rows scored
 * before the store kept that level do, and selection reads their distributions instead.
 * random() is seeded: every run sees the same data. Sample ids are `t<n>#<candidate>` of
 * task `t<n>`, so task ids rise along sample id order; with `descending` task `t<n>` is
 * named `u<tasks − 1 − n>` instead (the same rows otherwise, each task's candidates side by
 * side as before), so task ids fall along sample id order and selection reads in task order.
 */
export async function seedSelectionRun(
  runner: SqlRunner,
  runId: string,
  tasks: number,
  candidates: number,
  leveled = true,
  descending = false,
): Promise<void> {
  const params = [runId, tasks, candidates];
  const taskId = descending ? "'u' || ($2::int - 1 - t)" : "'t' || t";
  await runner.query("SELECT setseed(0.42)");
  await runner.query(`INSERT INTO runs (id, spec, transport) VALUES ($1, '{}', 'bench')`, [runId]);
  // Its raw tables' partitions, as Store.startRun makes them.
  await runner.query("SELECT assay_create_run_partitions($1)", [runId]);
  await runner.query(
    `INSERT INTO samples (run_id, sample_id, task_id, candidate_index, label, line, metadata)
     SELECT $1, 't' || t || '#' || c, ${taskId}, c,
            CASE WHEN t % 3 = 0 THEN NULL ELSE random() < 0.45 END, t + 1, '{}'
     FROM generate_series(0, $2::int - 1) t, generate_series(0, $3::int - 1) c`,
    params,
  );
  await runner.query(
    `INSERT INTO scores (run_id, sample_id, scorer, rule, status, value, reason, detail, discrete_level)
     SELECT $1, 't' || t || '#' || c, s.scorer, 'default',
            CASE WHEN r < s.unscored THEN 'unscored' ELSE 'scored' END,
            CASE WHEN r < s.unscored THEN NULL
                 WHEN s.scorer = 'judge' THEN floor(random() * 21) / 20
                 ELSE (random() < 0.4)::int END,
            CASE WHEN r < s.unscored THEN 'overflow' END,
            CASE WHEN judged THEN
              ('{"criteria":[{"name":"correct","variants":[{"variant":0,"distribution":['
               || p0 || ',' || p1 || ',' || p2 || ']}]}]}')::jsonb END,
            -- The level the store works out when it writes a row: the first maximum's index
            -- over the last index.
            CASE WHEN judged AND $4::boolean THEN
              CASE WHEN p0 >= p1 AND p0 >= p2 THEN 0 WHEN p1 >= p2 THEN 0.5 ELSE 1 END END
     -- Each row's draws are made in the subquery's select list, once per row: a lateral
     -- draw would be made once per task and reused for all its candidates and scorers.
     FROM (SELECT t, c, s.scorer, s.unscored, random() AS r,
                  round(random()::numeric, 3) AS p0, round(random()::numeric, 3) AS p1,
                  round(random()::numeric, 3) AS p2
           FROM generate_series(0, $2::int - 1) t, generate_series(0, $3::int - 1) c,
                (VALUES ('judge', 0.02), ('exact', 0.01)) s(scorer, unscored)) s,
          LATERAL (SELECT s.scorer = 'judge' AND r >= s.unscored AS judged) j`,
    [...params, leveled],
  );
}
