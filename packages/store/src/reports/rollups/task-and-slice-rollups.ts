import { declaredMetadataKeys } from "@assay/core";
import type { SqlRunner } from "../../sql-runner.js";
import { rawSliceRows, SLICE_QUERIES, type SliceRows } from "../slice-report.js";
import type { StoredSlice } from "./slice-rollups.js";

/**
 * Numbers the run's task ids that no run numbered yet (`task_keys`, migration 0025), on a
 * connection of its own before the rollup transaction: a completion that waits for another
 * numbering the same new ids waits for one statement, not for that run's whole rollup.
 */
export async function numberRunTasks(runner: SqlRunner, runId: string): Promise<void> {
  await runner.query("SELECT assay_number_run_tasks($1)", [runId]);
}

/**
 * Writes the run's task rollups (each task's figures in `task_rollup_chunks`, what a
 * comparison pairs on) and slice rollups (the slice report's rows per value of each
 * metadata key the spec declares), inside the caller's rollup transaction, after
 * `numberRunTasks`. False when the run has no chunk partition (not expected: runs make it
 * when they start, migration 0025 for older runs), so its comparisons and slices read raw rows.
 */
export async function writeTaskAndSliceRollups(runner: SqlRunner, runId: string): Promise<boolean> {
  // In the database (assay_write_task_rollup_chunks, migration 0025): the scores never leave
  // the server, and each task's mean is the raw comparison's avg over the same rows.
  const { rows: written } = await runner.query<{ written: boolean }>(
    "SELECT assay_write_task_rollup_chunks($1) AS written",
    [runId],
  );
  if (written[0]?.written !== true) return false;
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
