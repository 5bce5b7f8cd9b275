import type { SqlRunner } from "../sql-runner.js";

/** The raw tables partitioned by run (migration 0015, `assay_run_partitioned_tables()`). */
export type RawTable = "samples" | "scores" | "truncations" | "usage" | "selections";

/** For each raw table, an SQL relation that holds exactly one run's rows. */
export type RunTables = Readonly<Record<RawTable, string>>;

// Why a query that joins raw tables names the run's partitions instead of filtering the
// parents by run: a filter the planner can prune on must be a constant on every table of
// the join (a run reached through `runs`, a CTE or `= ANY` on one side is not), and a
// constant filter on a table never analysed is guessed to keep a fraction of a percent of
// its rows. Two such guesses in one join made Postgres pick nested loops that scan a whole
// partition per outer row (minutes for 20,000 tasks). A partition read by name is planned
// from its real size on disk when it has no statistics, and only it is read. Joins between
// a run's partitions still match run_id: the primary keys lead with it, so a nested loop
// can look the inner row up by the outer one.
const PARTITIONS = `
  SELECT r AS run_id, t AS "table", quote_ident(assay_run_partition(t, r)) AS name,
         to_regclass(quote_ident(assay_run_partition(t, r))) IS NOT NULL AS present
  FROM unnest($1::text[]) r, unnest(assay_run_partitioned_tables()) t`;

/**
 * Each run's partition of each raw table, or a relation with no rows where it has none (a
 * pruned run, or an id no run has), so that a query reads nothing rather than failing.
 */
export async function runTablesOf(
  runner: SqlRunner,
  runIds: readonly string[],
): Promise<Map<string, RunTables>> {
  const { rows } = await runner.query<{
    run_id: string;
    table: RawTable;
    name: string;
    present: boolean;
  }>(PARTITIONS, [runIds]);
  const byRun = new Map<string, Record<RawTable, string>>();
  for (const row of rows) {
    const tables = byRun.get(row.run_id) ?? ({} as Record<RawTable, string>);
    // ONLY a partitioned parent: no partition, so no rows, and it takes an alias or none.
    tables[row.table] = row.present ? row.name : `ONLY ${row.table}`;
    byRun.set(row.run_id, tables);
  }
  return byRun;
}

/** One run's tables, as `runTablesOf` gives them. */
export async function runTables(runner: SqlRunner, runId: string): Promise<RunTables> {
  return (await runTablesOf(runner, [runId])).get(runId) as RunTables;
}

/**
 * The rows of several runs, each read from its own partitions, in one statement: one
 * `UNION ALL` branch per run (`branch` is given the run's tables and the parameter that
 * holds its id, `$1` for the first run), ordered by `orderBy` over the branches' columns.
 * One statement rather than one per run: a trend of 30 runs would otherwise pay 30 round
 * trips. A run named twice is read once, as `run_id = ANY(...)` would.
 */
export async function queryEachRun<R>(
  runner: SqlRunner,
  runIds: readonly string[],
  branch: (tables: RunTables, runId: string) => string,
  orderBy: string,
): Promise<R[]> {
  const runs = [...new Set(runIds)];
  if (runs.length === 0) return [];
  const tables = await runTablesOf(runner, runs);
  const branches = runs.map(
    (runId, i) => `(${branch(tables.get(runId) as RunTables, `$${i + 1}::text`)})`,
  );
  const { rows } = await runner.query<R>(
    `SELECT * FROM (${branches.join("\n  UNION ALL ")}) run_rows ORDER BY ${orderBy}`,
    runs,
  );
  return rows;
}
