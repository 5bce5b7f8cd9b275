import { candidateOrder } from "../queries/candidate-order.js";
import type { SqlRunner } from "../sql-runner.js";
import { num } from "./group-by-run.js";
import { PASS_THRESHOLD } from "./pass-rule.js";
import { queryEachRun, type RunTableSet, type RunTables } from "./run-tables.js";

// Solved tasks of runs without selection (docs/figures.md, "Pass and solved"): a task is
// solved when its first candidate (lowest candidate index, then line: candidate-order.ts) has a result from the deciding
// scorer (`runs.solved_by`; null: every scorer it has) and every such result passes the
// run's rule. A task whose first candidate has no such result, or an unscored one, is
// unsolved. Runs with selection are left out: their pick decides (selection-stats.ts).
// One branch per run, on its own partitions (run-tables.ts).
const solvedWithoutSelectionSql = (t: RunTables, runId: string) => `
  WITH first AS (
    SELECT DISTINCT ON (x.task_id) x.run_id, x.sample_id
    FROM ${t.samples} x
    ORDER BY ${candidateOrder("x")}
  ), judged AS (
    SELECT bool_and(s.status = 'scored' AND s.value >= ${PASS_THRESHOLD}) AS passes
    FROM first f
    JOIN ${t.scores} s ON s.run_id = f.run_id AND s.sample_id = f.sample_id
    JOIN runs r ON r.id = ${runId} AND (r.solved_by IS NULL OR s.scorer = r.solved_by)
    GROUP BY f.sample_id
  )
  SELECT r.id AS run_id, (SELECT count(*) FILTER (WHERE passes) FROM judged) AS solved
  FROM runs r WHERE r.id = ${runId} AND NOT r.has_selection`;

/** Solved tasks of each run without selection; runs with selection are not in the map. */
export async function solvedWithoutSelection(
  runner: SqlRunner,
  tables: RunTableSet,
): Promise<Map<string, number>> {
  const rows = await queryEachRun<{ run_id: string; solved: unknown }>(
    runner,
    tables,
    solvedWithoutSelectionSql,
    "run_id",
  );
  return new Map(rows.map((r) => [r.run_id, num(r.solved)]));
}
