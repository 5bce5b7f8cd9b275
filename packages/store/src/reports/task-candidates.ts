import type { SqlRunner } from "../sql-runner.js";
import { numOrNull } from "./group-by-run.js";

export interface CandidateQuery {
  /** The scorer whose value ranks candidates (the verifier). */
  verifierScorer: string;
  /** Deterministic scorer deciding correctness where a candidate has no label. */
  checkScorer?: string;
}

/** One stored candidate with what selection needs to know about it. */
export interface CandidateRow {
  taskId: string;
  sampleId: string;
  candidateIndex: number;
  label: boolean | null;
  /** Mean of the verifier's rows; null when any row is unscored or none exists. */
  verifierScore: number | null;
  /** Each verifier row's `detail.criteria` (for the discrete-judge comparison). */
  verifierCriteria: unknown[];
  /** Mean of the check scorer's rows; null when any is unscored or none exists. */
  checkValue: number | null;
}

// A page of whole tasks (keyset on task_id, through samples_run_task_idx), then each
// candidate's scores by primary-key lookups. A scorer's value is null as soon as one of
// its rows is unscored: a partial mean would pretend to know more than it does.
const PAGE = `
  WITH page AS (
    SELECT DISTINCT task_id FROM samples
    WHERE run_id = $1 AND task_id > $2 ORDER BY task_id LIMIT $3
  )
  SELECT sm.task_id, sm.sample_id, sm.candidate_index, sm.label,
         v.value AS verifier_score, v.criteria AS verifier_criteria, c.value AS check_value
  FROM samples sm
  JOIN page ON page.task_id = sm.task_id
  LEFT JOIN LATERAL (
    SELECT CASE WHEN bool_and(status = 'scored') THEN avg(value) END AS value,
           jsonb_agg(detail -> 'criteria') FILTER (WHERE detail ? 'criteria') AS criteria
    FROM scores s WHERE s.run_id = $1 AND s.sample_id = sm.sample_id AND s.scorer = $4
  ) v ON true
  LEFT JOIN LATERAL (
    SELECT CASE WHEN bool_and(status = 'scored') THEN avg(value) END AS value
    FROM scores s WHERE s.run_id = $1 AND s.sample_id = sm.sample_id AND s.scorer = $5
  ) c ON true
  WHERE sm.run_id = $1
  ORDER BY sm.task_id, sm.candidate_index`;

interface Row {
  task_id: string;
  sample_id: string;
  candidate_index: number;
  label: boolean | null;
  verifier_score: unknown;
  verifier_criteria: unknown[] | null;
  check_value: unknown;
}

/** Candidates of the run, whole tasks at a time, in task order. */
export async function* taskCandidatePages(
  runner: SqlRunner,
  runId: string,
  query: CandidateQuery,
  tasksPerPage = 2000,
): AsyncGenerator<CandidateRow[]> {
  let after = "";
  for (;;) {
    const { rows } = await runner.query<Row>(PAGE, [
      runId,
      after,
      tasksPerPage,
      query.verifierScorer,
      query.checkScorer ?? null,
    ]);
    const last = rows.at(-1);
    if (last === undefined) return;
    yield rows.map(candidateOf);
    after = last.task_id;
  }
}

function candidateOf(row: Row): CandidateRow {
  return {
    taskId: row.task_id,
    sampleId: row.sample_id,
    candidateIndex: row.candidate_index,
    label: row.label,
    verifierScore: numOrNull(row.verifier_score),
    verifierCriteria: row.verifier_criteria ?? [],
    checkValue: numOrNull(row.check_value),
  };
}
