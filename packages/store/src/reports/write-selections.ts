import type { SelectionRecord } from "@assay/core";
import type { SqlRunner } from "../sql-runner.js";

export type { SelectionRecord };

// One statement per batch (array parameters, unnested). Rerunning selection with other
// options replaces the task's row: the latest selection is the one reports show. It also
// forgets the run's rollup (its accuracy is now out of date), so reports read raw rows
// until the rollups are written again when the run completes.
const UPSERT = `
  WITH stale_rollup AS (DELETE FROM run_rollups WHERE run_id = $1)
  INSERT INTO selections (run_id, task_id, method, candidates, selected_index, selected_sample_id,
                          tie, discrete_tie, tie_break, selected_correct, first_correct, any_correct, detail)
  SELECT $1, * FROM unnest($2::text[], $3::text[], $4::int[], $5::int[], $6::text[], $7::bool[],
                           $8::bool[], $9::text[], $10::bool[], $11::bool[], $12::bool[], $13::jsonb[])
  ON CONFLICT (run_id, task_id) DO UPDATE SET
    method = excluded.method, candidates = excluded.candidates,
    selected_index = excluded.selected_index, selected_sample_id = excluded.selected_sample_id,
    tie = excluded.tie, discrete_tie = excluded.discrete_tie, tie_break = excluded.tie_break,
    selected_correct = excluded.selected_correct, first_correct = excluded.first_correct,
    any_correct = excluded.any_correct, detail = excluded.detail, created_at = now()`;

export async function writeSelections(
  runner: SqlRunner,
  runId: string,
  records: readonly SelectionRecord[],
): Promise<number> {
  if (records.length === 0) return 0;
  const column = <T>(pick: (r: SelectionRecord) => T): T[] => records.map(pick);
  const result = await runner.query(UPSERT, [
    runId,
    column((r) => r.taskId),
    column((r) => r.method),
    column((r) => r.candidates),
    column((r) => r.selectedIndex),
    column((r) => r.selectedSampleId),
    column((r) => r.tie),
    column((r) => r.discreteTie),
    column((r) => r.tieBreak),
    column((r) => r.selectedCorrect),
    column((r) => r.firstCorrect),
    column((r) => r.anyCorrect),
    column((r) => JSON.stringify(r.detail)),
  ]);
  return result.rowCount;
}
