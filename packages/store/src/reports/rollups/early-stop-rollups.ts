import type { EarlyStopReport } from "@assay/core";
import { type BulkPart, bulkPart } from "../../bulk/bulk-statement.js";
import type { SqlRunner } from "../../sql-runner.js";
import { type EarlyStopRow, earlyStopCandidateOf } from "../early-stop-candidate.js";
import type { EarlyStopSetting } from "../early-stops.js";
import { num } from "../group-by-run.js";
import { EARLY_STOP_CANDIDATE_ROLLUP_COLUMNS, EARLY_STOP_ROLLUP_COLUMNS } from "./rollup-tables.js";

/**
 * Candidates a rollup keeps, in report order: ten times the default list, so a report asking
 * for more than that is computed from raw rows. The total counts them all.
 */
export const ROLLED_UP_EARLY_STOPS = 1000;

// One primary-key read of the setting's row and a range of its candidates. A run rolled up
// for another setting (or not at all) returns no row.
const READ = `
  SELECT h.total, c.sample_id, c.task_id, c.scorer, c.from_step, c.falls, c.progress
  FROM early_stop_rollups h
  LEFT JOIN early_stop_candidate_rollups c ON c.run_id = h.run_id AND c.position < $4
  WHERE h.run_id = $1 AND h.fall_steps = $2 AND h.min_fall = $3::float8
  ORDER BY c.position`;
type Row = Omit<EarlyStopRow, "sample_id"> & { sample_id: string | null; total: unknown };

/** The run's rolled-up early stops for this setting, or undefined: compute them from raw rows. */
export async function readEarlyStopRollup(
  runner: SqlRunner,
  runId: string,
  { fallSteps, minFall, limit }: EarlyStopSetting,
): Promise<EarlyStopReport | undefined> {
  if (limit > ROLLED_UP_EARLY_STOPS) return undefined;
  const { rows } = await runner.query<Row>(READ, [runId, fallSteps, minFall, limit]);
  const head = rows[0];
  if (head === undefined) return undefined;
  return {
    fallSteps,
    minFall,
    total: num(head.total),
    // A run without candidates is one row with no candidate columns (the left join).
    candidates: rows.flatMap((row) =>
      row.sample_id === null
        ? []
        : [earlyStopCandidateOf(runId, { ...row, sample_id: row.sample_id })],
    ),
  };
}

/** The rows that store a run's early stops for the setting they were computed with. */
export function earlyStopRollupParts(runId: string, stops: EarlyStopReport): BulkPart[] {
  const { fallSteps, minFall, total } = stops;
  return [
    bulkPart(EARLY_STOP_ROLLUP_COLUMNS, [{ runId, fallSteps, minFall, total }]),
    bulkPart(
      EARLY_STOP_CANDIDATE_ROLLUP_COLUMNS,
      stops.candidates.map((candidate, position) => ({ ...candidate, runId, position })),
    ),
  ];
}
