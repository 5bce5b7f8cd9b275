import type { EarlyStopReport } from "@assay/core";
import type { SqlRunner } from "../sql-runner.js";
import { type EarlyStopRow, earlyStopCandidateOf } from "./early-stop-candidate.js";
import { num } from "./group-by-run.js";
import { DEFAULT_FALL_STEPS, DEFAULT_MIN_FALL } from "./report-options.js";
import { readEarlyStopRollup } from "./rollups/early-stop-rollups.js";
import { type RunTables, runTables } from "./run-tables.js";

// A drop of exactly the minimum counts: 0.9 − 0.8 is 0.0999… in floating point.
const FALL_TOLERANCE = 1e-9;
/** Candidates returned when not given; `total` still counts them all. */
export const DEFAULT_EARLY_STOP_LIMIT = 100;

// The verifier stores a trajectory's curve as detail.progress (a JSON array, null where a
// prefix was unscored). A fall is a step lower than the one before it by at least the
// minimum ($3); a plateau, a smaller drop, a rise or a null ends a streak. Consecutive
// falls share `step - row_number()` (gaps and islands); each curve keeps its first streak
// of at least M ($1) falls. Each curve gets a number once (materialized, so both reads of
// `curves` see the same numbers): sorting on it costs much less than on the five text and
// number columns of the result key.
// On the run's own partitions (run-tables.ts).
const earlyStopsSql = (t: RunTables) => `
  WITH curves AS MATERIALIZED (
    SELECT run_id, sample_id, scorer, detail->'progress' AS progress,
           row_number() OVER () AS curve
    FROM ${t.scores}
    WHERE jsonb_typeof(detail->'progress') = 'array'
  ), points AS (
    SELECT curve, p.ord - 1 AS step,
           CASE WHEN jsonb_typeof(p.value) = 'number' THEN (p.value #>> '{}')::float8 END AS value
    FROM curves CROSS JOIN LATERAL jsonb_array_elements(progress) WITH ORDINALITY AS p(value, ord)
  ), steps AS (
    SELECT curve, step, value, lag(value) OVER (PARTITION BY curve ORDER BY step) AS before
    FROM points
  ), falls AS (
    SELECT curve, step, value, before,
           step - row_number() OVER (PARTITION BY curve ORDER BY step) AS island
    FROM steps WHERE value < before AND before - value >= $3::float8 - ${FALL_TOLERANCE}::float8
  ), streaks AS (
    SELECT curve, min(step) - 1 AS from_step, count(*) AS falls, max(before) - min(value) AS drop
    FROM falls GROUP BY curve, island HAVING count(*) >= $1
  ), first_streaks AS (
    SELECT DISTINCT ON (curve) * FROM streaks ORDER BY curve, from_step
  )
  SELECT c.sample_id, s.task_id, c.scorer, f.from_step, f.falls, c.progress,
         count(*) OVER () AS total
  FROM first_streaks f
  JOIN curves c USING (curve)
  JOIN ${t.samples} s USING (run_id, sample_id)
  ORDER BY f.falls DESC, f.drop DESC, s.task_id, c.sample_id, c.scorer
  LIMIT $2`;

type Row = EarlyStopRow & { total: unknown };

export interface EarlyStopOptions {
  /** M: falls in a row that make a candidate. Default 3. */
  fallSteps?: number;
  /** Smallest drop (on the 0–1 value) that counts as a fall. Default 0.01; 0: any drop. */
  minFall?: number;
  /** Most candidates returned. Default 100. */
  limit?: number;
}

/** What an early-stop report asks for, every option given. */
export interface EarlyStopSetting {
  fallSteps: number;
  minFall: number;
  limit: number;
}

/**
 * Trajectories of a run whose verifier value fell, by at least the minimum each step, M steps
 * in a row (early-stop candidates). Read from the run's rollup when it has one for this
 * setting, else computed from raw rows.
 */
export async function earlyStops(
  runner: SqlRunner,
  runId: string,
  options: EarlyStopOptions = {},
): Promise<EarlyStopReport> {
  const fallSteps = options.fallSteps ?? DEFAULT_FALL_STEPS;
  if (!Number.isInteger(fallSteps) || fallSteps < 1) {
    throw new RangeError(
      `Expected \`fallSteps\` to be a whole number from 1 and up, got ${fallSteps}`,
    );
  }
  const minFall = options.minFall ?? DEFAULT_MIN_FALL;
  if (!Number.isFinite(minFall) || minFall < 0) {
    throw new RangeError(`Expected \`minFall\` to be a number from 0 and up, got ${minFall}`);
  }
  const limit = options.limit ?? DEFAULT_EARLY_STOP_LIMIT;
  if (!Number.isInteger(limit) || limit < 0) {
    throw new RangeError(`Expected \`limit\` to be a whole number from 0 and up, got ${limit}`);
  }
  const setting = { fallSteps, minFall, limit };
  return (
    (await readEarlyStopRollup(runner, runId, setting)) ??
    (await rawEarlyStops(runner, runId, setting))
  );
}

/** Early stops from the run's raw rows (what the rollup stores, and runs without one read). */
export async function rawEarlyStops(
  runner: SqlRunner,
  runId: string,
  { fallSteps, minFall, limit }: EarlyStopSetting,
): Promise<EarlyStopReport> {
  const tables = await runTables(runner, runId);
  const { rows } = await runner.query<Row>(earlyStopsSql(tables), [fallSteps, limit, minFall]);
  return {
    fallSteps,
    minFall,
    total: num(rows[0]?.total),
    candidates: rows.map((row) => earlyStopCandidateOf(runId, row)),
  };
}
