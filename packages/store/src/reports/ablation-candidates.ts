import type { CandidateQuery, CriterionValues } from "@assay/core";
import { candidateOrder } from "../queries/candidate-order.js";
import type { SqlRunner } from "../sql-runner.js";
import { numOrNull } from "./group-by-run.js";

/** A candidate with the per-criterion, per-variant values behind its verifier score. */
export interface AblationCandidateRow {
  taskId: string;
  sampleId: string;
  candidateIndex: number;
  label: boolean | null;
  /**
   * One entry per stored verifier row (one for the verifier); each lists the row's
   * criteria from `detail.criteria`, empty when the row kept none (overflow, error).
   */
  verifierRows: CriterionValues[][];
  /** Mean of the check scorer's rows; null when any is unscored or none exists. */
  checkValue: number | null;
}

// Same pages of whole tasks as selection reads (keyset on task_id). Only the values leave
// the database: each row's criteria become [name, [v0, v1, ...]], without the G-bin
// distributions and truncation records that make a stored detail large.
const PAGE = `
  WITH page AS (
    SELECT DISTINCT task_id FROM samples
    WHERE run_id = $1 AND task_id > $2 ORDER BY task_id LIMIT $3
  )
  SELECT sm.task_id, sm.sample_id, sm.candidate_index, sm.label,
         v.rows AS verifier_rows, c.value AS check_value
  FROM samples sm
  JOIN page ON page.task_id = sm.task_id
  LEFT JOIN LATERAL (
    SELECT jsonb_agg(p.criteria) AS rows
    FROM scores s
    CROSS JOIN LATERAL (
      SELECT coalesce(jsonb_agg(jsonb_build_array(e.c -> 'name',
               jsonb_path_query_array(e.c, '$.variants[*].value')) ORDER BY e.n), '[]'::jsonb)
             AS criteria
      FROM jsonb_array_elements(CASE WHEN jsonb_typeof(s.detail -> 'criteria') = 'array'
                                     THEN s.detail -> 'criteria' ELSE '[]'::jsonb END)
           WITH ORDINALITY AS e(c, n)
    ) p
    WHERE s.run_id = $1 AND s.sample_id = sm.sample_id AND s.scorer = $4
  ) v ON true
  LEFT JOIN LATERAL (
    SELECT CASE WHEN bool_and(status = 'scored') THEN avg(value) END AS value
    FROM scores s WHERE s.run_id = $1 AND s.sample_id = sm.sample_id AND s.scorer = $5
  ) c ON true
  WHERE sm.run_id = $1
  ORDER BY ${candidateOrder("sm")}`;

interface Row {
  task_id: string;
  sample_id: string;
  candidate_index: number;
  label: boolean | null;
  verifier_rows: unknown;
  check_value: unknown;
}

/** The run's candidates with their per-criterion, per-variant verifier values, whole tasks at a time. */
export async function* ablationCandidatePages(
  runner: SqlRunner,
  runId: string,
  query: CandidateQuery,
  tasksPerPage = 2000,
): AsyncGenerator<AblationCandidateRow[]> {
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

function candidateOf(row: Row): AblationCandidateRow {
  return {
    taskId: row.task_id,
    sampleId: row.sample_id,
    candidateIndex: row.candidate_index,
    label: row.label,
    verifierRows: Array.isArray(row.verifier_rows) ? row.verifier_rows.map(criteriaOf) : [],
    checkValue: numOrNull(row.check_value),
  };
}

// `detail` is free-form JSON: whatever is not [name, [numbers or nulls]] reads as no value.
function criteriaOf(criteria: unknown): CriterionValues[] {
  if (!Array.isArray(criteria)) return [];
  return criteria.map((entry) => {
    const [name, values] = Array.isArray(entry) ? entry : [];
    return {
      criterion: typeof name === "string" ? name : "",
      values: Array.isArray(values)
        ? values.map((v) => (typeof v === "number" && Number.isFinite(v) ? v : null))
        : [],
    };
  });
}
