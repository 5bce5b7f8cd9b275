import type { SqlRunner } from "../../sql-runner.js";
import {
  type CountRow,
  countedByMetric,
  type PairedDifferences,
  rolledUpAccuracyCountsSql,
  rolledUpScorerCountsSql,
  summedWhereManySql,
} from "../paired-difference-counts.js";
import { runTablesOf } from "../run-tables.js";

// The run a completed run is compared with in the morning: the one of the same name started
// last before it (ties in start time broken by id) that completed with task rollups, and
// was neither abandoned nor pruned since (its partitions would be gone). Its rollup row is
// locked until the comparison is stored: a resume of it that drops its rollups meanwhile
// waits, and then forgets this comparison with them (write-rollups.ts, dropRollups).
const PREDECESSOR = `
  SELECT p.id FROM runs r
  JOIN runs p ON p.name = r.name AND (p.created_at, p.id) < (r.created_at, r.id)
  JOIN run_rollups pr ON pr.run_id = p.id AND pr.tasks_rolled_up
  WHERE r.id = $1 AND p.abandoned_at IS NULL AND p.pruned_at IS NULL
  ORDER BY p.created_at DESC, p.id DESC
  LIMIT 1
  FOR SHARE OF pr`;

// The baseline pinned for the run's name (`assay baseline`), on the same terms as the
// predecessor (rolled up with its tasks, not abandoned or pruned, its row locked), and never
// the run itself: a pinned run that completes again is not compared with itself.
const PINNED = `
  SELECT p.id FROM runs r
  JOIN run_baselines b ON b.name = r.name
  JOIN runs p ON p.id = b.run_id AND p.id <> r.id
  JOIN run_rollups pr ON pr.run_id = p.id AND pr.tasks_rolled_up
  WHERE r.id = $1 AND p.abandoned_at IS NULL AND p.pruned_at IS NULL
  FOR SHARE OF pr`;

/** The runs a completed run's comparisons were counted with; null where there was none. */
export interface StoredComparisons {
  comparedWith: string | null;
  /** The pinned baseline, when it is not `comparedWith` already. */
  comparedWithPinned: string | null;
}

/**
 * Counts the run's comparisons with its predecessor and with its name's pinned baseline into
 * `comparison_rollups`, inside the caller's rollup transaction and after the run's task
 * rollups are written: the counting queries of a live comparison, stored in the order they
 * give their rows. Returns the runs it was compared with.
 */
export async function writeComparisonRollups(
  runner: SqlRunner,
  runId: string,
): Promise<StoredComparisons> {
  const predecessor = (await runner.query<{ id: string }>(PREDECESSOR, [runId])).rows[0]?.id;
  const pinned = (await runner.query<{ id: string }>(PINNED, [runId])).rows[0]?.id;
  const stored: StoredComparisons = {
    comparedWith: predecessor ?? null,
    comparedWithPinned: pinned !== undefined && pinned !== predecessor ? pinned : null,
  };
  for (const baseline of [stored.comparedWith, stored.comparedWithPinned]) {
    if (baseline !== null) await countComparison(runner, runId, baseline);
  }
  return stored;
}

async function countComparison(runner: SqlRunner, runId: string, baseline: string): Promise<void> {
  const tables = await runTablesOf(runner, [runId, baseline]);
  const [a, b] = [tables.of(runId), tables.of(baseline)];
  await runner.query(
    `INSERT INTO comparison_rollups (run_id, baseline_run_id, position, kind, metric,
                                     difference, tasks, current_sum, baseline_sum, square_sum)
     SELECT $1, $2,
            (row_number() OVER (ORDER BY c.part, c.metric_position, c.metric, c.difference) - 1)::int,
            c.kind, c.metric, c.difference, c.tasks, c.a_sum, c.b_sum, c.square_sum
     FROM (SELECT 1 AS part, 'accuracy' AS kind, q.*
           FROM (${summedWhereManySql(rolledUpAccuracyCountsSql(a, b))}) q
           UNION ALL
           SELECT 2 AS part, 'scorer' AS kind, q.*
           FROM (${rolledUpScorerCountsSql(a, b)}) q) c`,
    [runId, baseline],
  );
}

/**
 * Whether the run's comparison with that baseline was counted when it completed (with the
 * run before it or its name's pinned baseline): a report of the pair reads those counts,
 * and needs neither run's raw rows.
 */
export async function comparisonCounted(
  runner: SqlRunner,
  runId: string,
  baselineRunId: string,
): Promise<boolean> {
  const { rows } = await runner.query(
    `SELECT 1 FROM run_rollups
     WHERE run_id = $1 AND (compared_with = $2 OR compared_with_pinned = $2)`,
    [runId, baselineRunId],
  );
  return rows.length > 0;
}

/** The stored comparison of the run with that baseline, as the live queries count it. */
export async function readComparisonRollups(
  runner: SqlRunner,
  runId: string,
  baselineRunId: string,
): Promise<PairedDifferences[]> {
  const { rows } = await runner.query<CountRow & { kind: PairedDifferences["kind"] }>(
    `SELECT kind, metric, difference, tasks, current_sum AS a_sum, baseline_sum AS b_sum,
            square_sum
     FROM comparison_rollups WHERE run_id = $1 AND baseline_run_id = $2
     ORDER BY position`,
    [runId, baselineRunId],
  );
  return [
    ...countedByMetric(
      rows.filter((row) => row.kind === "accuracy"),
      "accuracy",
    ),
    ...countedByMetric(
      rows.filter((row) => row.kind === "scorer"),
      "scorer",
    ),
  ];
}
