import { declaredMetadataKeys } from "@assay/core";
import type { SqlRunner } from "../../sql-runner.js";
import { runTables } from "../run-tables.js";
import { rawSliceRows, SLICE_QUERIES, type SliceRows } from "../slice-report.js";
import type { StoredSlice } from "./slice-rollups.js";

/**
 * Writes the run's task score rollups (each task's mean per scorer, what a comparison pairs
 * on) and slice rollups (the slice report's rows per value of each metadata key the spec
 * declares), inside the caller's rollup transaction. False when the run has no partition
 * for task rollups (not expected: runs make it when they start, migration 0020 for older
 * runs), so its comparisons and slices read raw rows.
 */
export async function writeTaskAndSliceRollups(runner: SqlRunner, runId: string): Promise<boolean> {
  const t = await runTables(runner, runId);
  if (t.task_score_rollups.startsWith("ONLY ")) return false;
  // In the database, a row per task and scorer: the scores never leave the server. The
  // same aggregate as the raw comparison (paired-differences.ts), so the same values.
  await runner.query(
    `INSERT INTO ${t.task_score_rollups} (run_id, task_id, scorer, value)
     SELECT s.run_id, sm.task_id, s.scorer, avg(s.value)
     FROM ${t.scores} s
     JOIN ${t.samples} sm ON sm.run_id = s.run_id AND sm.sample_id = s.sample_id
     WHERE s.status = 'scored'
     GROUP BY s.run_id, sm.task_id, s.scorer`,
  );
  const { rows } = await runner.query<{ declared: unknown }>(
    "SELECT spec #> '{fields,metadata}' AS declared FROM runs WHERE id = $1",
    [runId],
  );
  for (const key of declaredMetadataKeys(rows[0]?.declared)) {
    const slices = bySliceValue(await rawSliceRows(runner, runId, [key]));
    await runner.query(
      `INSERT INTO slice_rollups (run_id, field, position, value, figures)
       SELECT $1, $2, s.position - 1, s.slice ->> 'value', s.slice -> 'figures'
       FROM jsonb_array_elements($3::jsonb) WITH ORDINALITY AS s(slice, position)`,
      [runId, key, JSON.stringify(slices, bigintsAsText)],
    );
  }
  return true;
}

/**
 * The slice report's rows grouped by slice value, each query's rows in the order it gave
 * them: read back and joined in position order, they are the query rows again.
 */
function bySliceValue(rows: SliceRows): { value: string | null; figures: StoredSlice }[] {
  const slices = new Map<string | null, StoredSlice>();
  for (const query of SLICE_QUERIES) {
    for (const row of rows[query]) {
      let figures = slices.get(row.slice);
      if (figures === undefined) {
        figures = {};
        slices.set(row.slice, figures);
      }
      const rowsOfQuery = figures[query] ?? [];
      rowsOfQuery.push(row);
      figures[query] = rowsOfQuery;
    }
  }
  return [...slices].map(([value, figures]) => ({ value, figures }));
}

/** Counts some drivers read as bigint, kept as the text other drivers give (num reads both). */
function bigintsAsText(_key: string, value: unknown): unknown {
  return typeof value === "bigint" ? value.toString() : value;
}
