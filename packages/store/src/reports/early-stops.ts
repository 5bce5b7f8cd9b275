import type { EarlyStopCandidate, EarlyStopReport } from "@assay/core";
import type { SqlRunner } from "../sql-runner.js";
import { num } from "./group-by-run.js";

/** M when not given: three falls in a row are rarely noise. */
export const DEFAULT_FALL_STEPS = 3;
/**
 * Smallest drop a step needs to count as a fall when not given: a hundredth of the 0–1
 * scale. Without it a curve drifting down by 1e-4 a step (noise) was listed as falling.
 */
export const DEFAULT_MIN_FALL = 0.01;
// A drop of exactly the minimum counts: 0.9 − 0.8 is 0.0999… in floating point.
const FALL_TOLERANCE = 1e-9;
/** Candidates returned when not given; `total` still counts them all. */
export const DEFAULT_EARLY_STOP_LIMIT = 100;

const CURVE_KEY = "run_id, sample_id, scorer, criterion, repetition";

// The verifier stores a trajectory's curve as detail.progress (a JSON array, null where a
// prefix was unscored). A fall is a step lower than the one before it by at least the
// minimum ($4); a plateau, a smaller drop, a rise or a null ends a streak. Consecutive
// falls share `step - row_number()` (gaps and islands); each curve keeps its first streak
// of at least M ($2) falls.
const EARLY_STOPS = `
  WITH curves AS (
    SELECT ${CURVE_KEY}, detail->'progress' AS progress
    FROM scores
    WHERE run_id = $1 AND jsonb_typeof(detail->'progress') = 'array'
  ), points AS (
    SELECT ${CURVE_KEY}, p.ord - 1 AS step,
           CASE WHEN jsonb_typeof(p.value) = 'number' THEN (p.value #>> '{}')::float8 END AS value
    FROM curves CROSS JOIN LATERAL jsonb_array_elements(progress) WITH ORDINALITY AS p(value, ord)
  ), steps AS (
    SELECT ${CURVE_KEY}, step, value,
           lag(value) OVER (PARTITION BY ${CURVE_KEY} ORDER BY step) AS before
    FROM points
  ), falls AS (
    SELECT ${CURVE_KEY}, step, value, before,
           step - row_number() OVER (PARTITION BY ${CURVE_KEY} ORDER BY step) AS island
    FROM steps WHERE value < before AND before - value >= $4::float8 - ${FALL_TOLERANCE}::float8
  ), streaks AS (
    SELECT ${CURVE_KEY}, min(step) - 1 AS from_step, count(*) AS falls,
           max(before) - min(value) AS drop
    FROM falls GROUP BY ${CURVE_KEY}, island HAVING count(*) >= $2
  ), first_streaks AS (
    SELECT DISTINCT ON (${CURVE_KEY}) * FROM streaks ORDER BY ${CURVE_KEY}, from_step
  )
  SELECT f.run_id, f.sample_id, s.task_id, f.scorer, f.from_step, f.falls, c.progress,
         count(*) OVER () AS total
  FROM first_streaks f
  JOIN curves c USING (${CURVE_KEY})
  JOIN samples s USING (run_id, sample_id)
  ORDER BY f.falls DESC, f.drop DESC, s.task_id, f.sample_id, f.scorer
  LIMIT $3`;

type Row = {
  run_id: string;
  sample_id: string;
  task_id: string;
  scorer: string;
  from_step: unknown;
  falls: unknown;
  progress: (number | null)[];
  total: unknown;
};

export interface EarlyStopOptions {
  /** M: falls in a row that make a candidate. Default 3. */
  fallSteps?: number;
  /** Smallest drop (on the 0–1 value) that counts as a fall. Default 0.01; 0: any drop. */
  minFall?: number;
  /** Most candidates returned. Default 100. */
  limit?: number;
}

/**
 * Trajectories of a run whose verifier value fell, by at least the minimum each step, M steps
 * in a row (early-stop candidates).
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
  const { rows } = await runner.query<Row>(EARLY_STOPS, [runId, fallSteps, limit, minFall]);
  return {
    fallSteps,
    minFall,
    total: num(rows[0]?.total),
    candidates: rows.map(candidateOf),
  };
}

function candidateOf(row: Row): EarlyStopCandidate {
  const fromStep = num(row.from_step);
  const falls = num(row.falls);
  return {
    runId: row.run_id,
    sampleId: row.sample_id,
    taskId: row.task_id,
    scorer: row.scorer,
    fromStep,
    falls,
    // Every value in a fall is a number: a null ends the streak.
    values: row.progress.slice(fromStep, fromStep + falls + 1) as number[],
    progress: row.progress,
  };
}
