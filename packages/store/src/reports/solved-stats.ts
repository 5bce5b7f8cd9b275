import { candidateOrder } from "../queries/candidate-order.js";
import type { SqlRunner } from "../sql-runner.js";
import { num } from "./group-by-run.js";
import { PASS_THRESHOLD } from "./pass-rule.js";

// Solved tasks of runs without selection (docs/figures.md, "Pass and solved"): a task is
// solved when its first candidate (lowest candidate index, then line: candidate-order.ts) has a result from the deciding
// scorer (`runs.solved_by`; null: every scorer it has) and every such result passes the
// run's rule. A task whose first candidate has no such result, or an unscored one, is
// unsolved. Runs with selection are left out: their pick decides (selection-stats.ts).
const SOLVED_WITHOUT_SELECTION = `
  WITH r AS (
    SELECT id, solved_by, pass_threshold, pass_thresholds FROM runs
    WHERE id = ANY($1::text[]) AND NOT has_selection
  ), first AS (
    SELECT DISTINCT ON (x.run_id, x.task_id) x.run_id, x.sample_id
    FROM samples x JOIN r ON r.id = x.run_id
    ORDER BY x.run_id, ${candidateOrder("x")}
  ), judged AS (
    SELECT f.run_id,
           bool_and(s.status = 'scored' AND s.value >= ${PASS_THRESHOLD}) AS passes
    FROM first f JOIN r ON r.id = f.run_id
    JOIN scores s ON s.run_id = f.run_id AND s.sample_id = f.sample_id
                 AND (r.solved_by IS NULL OR s.scorer = r.solved_by)
    GROUP BY f.run_id, f.sample_id
  )
  SELECT r.id AS run_id, count(j.run_id) FILTER (WHERE j.passes) AS solved
  FROM r LEFT JOIN judged j ON j.run_id = r.id GROUP BY r.id`;

/** Solved tasks of each run without selection; runs with selection are not in the map. */
export async function solvedWithoutSelection(
  runner: SqlRunner,
  runIds: readonly string[],
): Promise<Map<string, number>> {
  const { rows } = await runner.query<{ run_id: string; solved: unknown }>(
    SOLVED_WITHOUT_SELECTION,
    [runIds],
  );
  return new Map(rows.map((r) => [r.run_id, num(r.solved)]));
}
