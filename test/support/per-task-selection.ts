import type { CandidateQuery, CandidateRow, SelectionRecord } from "@assay/core";
import {
  distributionsIn,
  type SelectTasksOptions,
  selectionRecordOf,
  selectTasks,
} from "@assay/selection";
import type { Store } from "@assay/store";
import { driverOf } from "@assay/store/driver";
import type { SqlRunner } from "@assay/store/reports";
import { runnerOf } from "@assay/store/reports";
import { storeSelections } from "./store-selections.js";

/**
 * How selection used to read a run, kept as the benchmark's baseline and the tests'
 * oracle: a page of tasks at a time (keyset on task_id), then each candidate's verifier
 * and check scores by two aggregate lookups, with SQL computing the means. The selections
 * are stored once every page is chosen, through the store's own selection pass.
 */
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
  ORDER BY sm.task_id, sm.candidate_index, sm.line, sm.sample_id`;

interface Row {
  task_id: string;
  sample_id: string;
  candidate_index: number;
  label: boolean | null;
  verifier_score: unknown;
  verifier_criteria: unknown[] | null;
  check_value: unknown;
}

export interface PerTaskOptions extends SelectTasksOptions, CandidateQuery {
  /** Tasks read and written per round trip. Default 2000, as it was. */
  tasksPerPage?: number;
  /** Stop after this many tasks (the benchmark times a sample). Default: every task. */
  maxTasks?: number;
}

/** Selects a page of tasks at a time, then stores them; returns the number of tasks selected. */
export async function selectPerTask(
  store: Store,
  runId: string,
  options: PerTaskOptions,
): Promise<number> {
  const runner = runnerOf(driverOf(store));
  const records: SelectionRecord[] = [];
  for await (const page of candidatePages(runner, runId, options, options.tasksPerPage)) {
    for (const selection of selectTasks([...groupByTask(page)], options)) {
      records.push(selectionRecordOf(selection));
    }
    if (records.length >= (options.maxTasks ?? Number.POSITIVE_INFINITY)) break;
  }
  await storeSelections(store, runId, records);
  return records.length;
}

/** Candidates of the run, whole tasks at a time, in task order. */
export async function* candidatePages(
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
    verifierDistributions: (row.verifier_criteria ?? []).map((criteria) =>
      distributionsIn({ criteria }),
    ),
    checkValue: numOrNull(row.check_value),
  };
}

function* groupByTask(rows: readonly CandidateRow[]) {
  const tasks = new Map<string, CandidateRow[]>();
  for (const row of rows) tasks.set(row.taskId, [...(tasks.get(row.taskId) ?? []), row]);
  for (const [taskId, candidates] of tasks) yield { taskId, candidates };
}

function numOrNull(value: unknown): number | null {
  return value === null || value === undefined ? null : Number(value);
}
