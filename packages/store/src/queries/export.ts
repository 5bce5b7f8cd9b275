import type { ExportRow } from "@assay/core";
import type { SqlRunner } from "../sql-runner.js";

const PAGE_SIZE = 5000;

// Keyset pagination: each page starts after the last key of the previous one, walking the
// primary-key index, so page N costs the same as page 1 and no cursor stays open between
// pages. A score without its sample row (written by hand) falls back to its own id as task.
const PAGE = `
  SELECT s.run_id, s.sample_id, coalesce(sm.task_id, s.sample_id) AS task_id,
         s.scorer, s.criterion, s.repetition, s.status, s.value, s.reason, s.rule, s.detail
  FROM scores s
  LEFT JOIN samples sm ON sm.run_id = s.run_id AND sm.sample_id = s.sample_id
  WHERE s.run_id = $1 AND (s.sample_id, s.scorer, s.criterion, s.repetition) > ($2, $3, $4, $5)
  ORDER BY s.sample_id, s.scorer, s.criterion, s.repetition
  LIMIT ${PAGE_SIZE}`;

export async function* exportScores(runner: SqlRunner, runId: string): AsyncGenerator<ExportRow> {
  // The empty string sorts first and repetitions start at 0, so ('', '', '', -1) precedes every key.
  let after: [string, string, string, number] = ["", "", "", -1];
  for (;;) {
    const { rows } = await runner.query<ExportRow>(PAGE, [runId, ...after]);
    yield* rows;
    const last = rows.at(-1);
    if (last === undefined || rows.length < PAGE_SIZE) return;
    after = [last.sample_id, last.scorer, last.criterion, last.repetition];
  }
}
