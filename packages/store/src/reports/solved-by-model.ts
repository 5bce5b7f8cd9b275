import { candidateOrder } from "../queries/candidate-order.js";
import type { SqlRunner } from "../sql-runner.js";
import { num } from "./group-by-run.js";
import { PASS_THRESHOLD } from "./pass-rule.js";
import { queryEachRun, type RunTableSet, type RunTables } from "./run-tables.js";

// Solved tasks by generator model (docs/figures.md, "Cost by model"): a task counts for
// the model that generated its deciding candidate, the one whose correctness decided it
// solved: the pick with selection (selection-stats.ts counts the same tasks), else the
// first candidate under the pass rule (solved-stats.ts). The model is the candidate's
// generator usage row; a solved task whose candidate has none counts for no model. One
// branch per run, on its own partitions (run-tables.ts).
const solvedByModelSql = (t: RunTables, runId: string) => `
  WITH first AS (
    SELECT DISTINCT ON (x.task_id) x.run_id, x.sample_id
    FROM ${t.samples} x
    JOIN runs r ON r.id = ${runId} AND NOT r.has_selection
    ORDER BY ${candidateOrder("x")}
  ), by_rule AS (
    SELECT f.sample_id
    FROM first f
    JOIN ${t.scores} s ON s.run_id = f.run_id AND s.sample_id = f.sample_id
    JOIN runs r ON r.id = ${runId} AND (r.solved_by IS NULL OR s.scorer = r.solved_by)
    GROUP BY f.sample_id
    HAVING bool_and(s.status = 'scored' AND s.value >= ${PASS_THRESHOLD})
  ), by_pick AS (
    SELECT sel.selected_sample_id AS sample_id
    FROM ${t.selections} sel
    JOIN runs r ON r.id = ${runId} AND r.has_selection
    WHERE sel.selected_index IS NOT NULL AND sel.selected_correct
      AND sel.first_correct IS NOT NULL AND sel.any_correct IS NOT NULL
  ), decided AS (
    SELECT sample_id FROM by_rule UNION ALL SELECT sample_id FROM by_pick
  )
  SELECT ${runId} AS run_id, u.model, count(*) AS solved
  FROM decided d
  JOIN ${t.usage} u ON u.run_id = ${runId} AND u.sample_id = d.sample_id
    AND u.role = 'generator' AND u.scorer = ''
  GROUP BY u.model`;

/** Each run's solved tasks by generator model; a model that solved none is not listed. */
export async function solvedByModel(
  runner: SqlRunner,
  tables: RunTableSet,
): Promise<Map<string, Map<string, number>>> {
  const rows = await queryEachRun<{ run_id: string; model: string; solved: unknown }>(
    runner,
    tables,
    solvedByModelSql,
    "run_id, model",
  );
  const byRun = new Map<string, Map<string, number>>();
  for (const row of rows) {
    let models = byRun.get(row.run_id);
    if (models === undefined) {
      models = new Map();
      byRun.set(row.run_id, models);
    }
    models.set(row.model, num(row.solved));
  }
  return byRun;
}
