import type { RunIdentity } from "@assay/core";
import type { SqlRunner } from "../sql-runner.js";

interface RunRow {
  id: string;
  name: string | null;
  dataset: string | null;
  created_at: Date | string;
  finished_at: Date | string | null;
  abandoned_at: Date | string | null;
}

const COLUMNS = "id, name, dataset, created_at, finished_at, abandoned_at";

// runs_created_idx / runs_name_created_idx serve both orders without a sort.
const LAST_RUNS = `SELECT ${COLUMNS} FROM runs ORDER BY created_at DESC LIMIT $1`;
const LAST_RUNS_NAMED = `SELECT ${COLUMNS} FROM runs WHERE name = $1 ORDER BY created_at DESC LIMIT $2`;
// planned_model_results is null on runs made before it was recorded: unknown, not idle.
const RUNS_BY_ID = `
  SELECT ${COLUMNS}, coalesce(planned_model_results = 0, false) AS without_model_calls
  FROM runs WHERE id = ANY($1::text[])`;

export interface RunSelector {
  /** Only runs with this name (a nightly series). Default: every run. */
  name?: string;
  /** How many of the newest runs. */
  last: number;
}

/** The newest runs, returned oldest first so a trend reads left to right. */
export async function lastRuns(runner: SqlRunner, selector: RunSelector): Promise<RunIdentity[]> {
  const { rows } =
    selector.name === undefined
      ? await runner.query<RunRow>(LAST_RUNS, [selector.last])
      : await runner.query<RunRow>(LAST_RUNS_NAMED, [selector.name, selector.last]);
  return rows.map(identityOf).reverse();
}

export interface RunsById {
  runs: RunIdentity[];
  /** The runs that planned no model call: their verification cost 0, not unknown. */
  withoutModelCalls: Set<string>;
}

export async function runsById(runner: SqlRunner, ids: readonly string[]): Promise<RunsById> {
  const { rows } = await runner.query<RunRow & { without_model_calls: boolean }>(RUNS_BY_ID, [ids]);
  return {
    runs: rows.map(identityOf),
    withoutModelCalls: new Set(rows.filter((row) => row.without_model_calls).map((row) => row.id)),
  };
}

function identityOf(row: RunRow): RunIdentity {
  return {
    runId: row.id,
    name: row.name,
    dataset: row.dataset,
    startedAt: new Date(row.created_at).toISOString(),
    finishedAt: row.finished_at === null ? null : new Date(row.finished_at).toISOString(),
    abandonedAt: row.abandoned_at === null ? null : new Date(row.abandoned_at).toISOString(),
  };
}
