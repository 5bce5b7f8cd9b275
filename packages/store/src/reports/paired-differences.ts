import type { SqlRunner } from "../sql-runner.js";
import {
  accuracyCountsSql,
  type CountRow,
  countedByMetric,
  type PairedDifferences,
  rawScorerCountsSql,
  rolledUpAccuracyCountsSql,
  rolledUpScorerCountsSql,
  type SummedFrom,
  summedWhereManySql,
} from "./paired-difference-counts.js";
import { comparisonCounted, readComparisonRollups } from "./rollups/comparison-rollups.js";
import { runTablesOf } from "./run-tables.js";

export type { PairedDifferences } from "./paired-difference-counts.js";

// Which of the runs have task rollups (unless a resume dropped them since).
const ROLLED_UP = `
  SELECT run_id FROM run_rollups WHERE run_id = ANY($1::text[]) AND tasks_rolled_up`;

/** Where a comparison's counts come from. */
export type PairingSource = "comparison rollups" | "task rollups" | "raw rows";

/**
 * pass@1, selected, oracle (when both runs have selections) and each scorer's per-task mean,
 * counted by difference. A run compared with the predecessor or pinned baseline it was counted against at
 * completion reads those counts; otherwise the two runs' tasks are paired now, from their
 * task rollup chunks when both have them, else from raw rows. `from`
 * forces one source (the benchmark measures each); every source gives the same figures.
 * `summedFrom` moves the point where a figure's differences are summed (tests; stored
 * comparisons were counted with the default).
 */
export async function pairedDifferences(
  runner: SqlRunner,
  runId: string,
  baselineRunId: string,
  from?: PairingSource,
  summedFrom?: SummedFrom,
): Promise<PairedDifferences[]> {
  const ids = [runId, baselineRunId];
  const counted = from !== "raw rows" && (await comparisonCounted(runner, runId, baselineRunId));
  if (from === "comparison rollups" || (from === undefined && counted)) {
    if (!counted) {
      throw new Error(`run ${runId} has no comparison with ${baselineRunId} rolled up`);
    }
    return readComparisonRollups(runner, runId, baselineRunId);
  }
  const rolled =
    from === "raw rows" ? [] : (await runner.query<{ run_id: string }>(ROLLED_UP, [ids])).rows;
  const tables = await runTablesOf(runner, ids);
  const [a, b] = [tables.of(runId), tables.of(baselineRunId)];
  const fromTaskRollups =
    from === "task rollups" ||
    (from === undefined && ids.every((id) => rolled.some((row) => row.run_id === id)));
  const [accuracy, scorer] = fromTaskRollups
    ? [rolledUpAccuracyCountsSql(a, b), rolledUpScorerCountsSql(a, b, summedFrom)]
    : [accuracyCountsSql(a, b), summedWhereManySql(rawScorerCountsSql(a, b), summedFrom)];
  const [accuracyRows, scorers] = await Promise.all([
    runner.query<CountRow>(summedWhereManySql(accuracy, summedFrom), ids),
    runner.query<CountRow>(scorer, fromTaskRollups ? ids : []),
  ]);
  return [
    ...countedByMetric(accuracyRows.rows, "accuracy"),
    ...countedByMetric(scorers.rows, "scorer"),
  ];
}
