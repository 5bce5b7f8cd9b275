import { declaredMetadataKeys } from "@assay/core";
import type { SqlRunner } from "../../sql-runner.js";
import type { Row, SliceRows } from "../slice-report.js";

// Whether the run was rolled up by slice, and which metadata keys its spec declares.
const SOURCE = `
  SELECT rr.tasks_rolled_up, r.spec #> '{fields,metadata}' AS declared
  FROM runs r LEFT JOIN run_rollups rr ON rr.run_id = r.id WHERE r.id = $1`;

// Primary-key range read: a row per value of the field.
const SLICES = `
  SELECT figures FROM slice_rollups WHERE run_id = $1 AND field = $2 ORDER BY position`;

/** One slice's query rows as stored: each query's rows of that value, in query order. */
export type StoredSlice = Partial<Record<keyof SliceRows, Row[]>>;

/**
 * Why the run's slices by a metadata key must come from raw rows, or undefined when its
 * rollups hold them: the key is not declared in the spec's `fields.metadata` (slices are
 * rolled up only for declared fields: any other key could be anything), or the run has no
 * slice rollups (unfinished, or rolled up before they existed).
 */
export async function sliceRollupsMissing(
  runner: SqlRunner,
  runId: string,
  path: readonly string[],
): Promise<string | undefined> {
  const { rows } = await runner.query<{ tasks_rolled_up: boolean | null; declared: unknown }>(
    SOURCE,
    [runId],
  );
  const run = rows[0];
  const key = path.length === 1 ? path[0] : undefined;
  if (key === undefined || !declaredMetadataKeys(run?.declared).includes(key)) {
    return "field not declared in fields.metadata";
  }
  if (run?.tasks_rolled_up !== true) return "run has no slice rollups";
  return undefined;
}

/** The run's slice rows for a metadata key, from its rollups, or why they must come from raw rows. */
export async function rolledUpSlices(
  runner: SqlRunner,
  runId: string,
  path: readonly string[],
): Promise<{ rows: SliceRows } | { reason: string }> {
  const reason = await sliceRollupsMissing(runner, runId, path);
  if (reason !== undefined) return { reason };
  const key = path[0] as string;
  const stored = await runner.query<{ figures: StoredSlice }>(SLICES, [runId, key]);
  const joined: SliceRows = {
    tasks: [],
    samples: [],
    scores: [],
    truncations: [],
    usage: [],
    verified: [],
    solvedByRule: [],
  };
  for (const { figures } of stored.rows) {
    for (const query of Object.keys(joined) as (keyof SliceRows)[]) {
      joined[query].push(...(figures[query] ?? []));
    }
  }
  return { rows: joined };
}
