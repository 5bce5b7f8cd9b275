import type { SqlRunner } from "./sql-runner.js";

/**
 * The tables partitioned by run, as `assay_run_partitioned_tables()` lists them (migrations
 * 0015 and 0025): the raw tables, and the one rollup that grows with the run's tasks.
 */
export const RAW_TABLES = [
  "samples",
  "scores",
  "truncations",
  "usage",
  "selections",
  "task_rollup_chunks",
] as const;

export type RawTable = (typeof RAW_TABLES)[number];

/** One run's partition of one raw table, as the catalog has it now. */
export interface RunPartition {
  runId: string;
  table: RawTable;
  /** The partition's name, quoted for SQL. */
  name: string;
  /** Whether the partition exists: not before the run wrote to the table, nor once pruned. */
  present: boolean;
  /** null: not attached (absent, or detached); false: attached; true: a detach did not finish. */
  detachPending: boolean | null;
}

// Catalog reads only: the partition names come from the same function the writers create
// them with, so a run id of any spelling maps to one name.
const PARTITIONS = `
  SELECT r AS "runId", t AS "table", quote_ident(p.name) AS name,
         to_regclass(quote_ident(p.name)) IS NOT NULL AS present,
         i.inhdetachpending AS "detachPending"
  FROM unnest($1::text[]) AS r
  CROSS JOIN unnest(assay_run_partitioned_tables()) AS t
  CROSS JOIN LATERAL (SELECT assay_run_partition(t, r) AS name) AS p
  LEFT JOIN pg_inherits i ON i.inhrelid = to_regclass(quote_ident(p.name))
  ORDER BY array_position($1::text[], r), array_position(assay_run_partitioned_tables(), t)`;

/**
 * Each run's partition of each raw table (of `tables`, else all of them), in the order the
 * runs and tables are given: one catalog query for any number of runs.
 */
export async function runPartitions(
  runner: SqlRunner,
  runIds: readonly string[],
  tables?: readonly RawTable[],
): Promise<RunPartition[]> {
  const { rows } = await runner.query<RunPartition>(PARTITIONS, [runIds]);
  return tables === undefined ? rows : rows.filter((p) => tables.includes(p.table));
}
