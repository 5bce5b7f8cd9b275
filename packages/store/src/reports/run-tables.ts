import { RAW_TABLES, type RawTable, runPartitions } from "../run-partitions.js";
import type { SqlRunner } from "../sql-runner.js";

export type { RawTable } from "../run-partitions.js";

/** For each raw table, an SQL relation that holds exactly one run's rows. */
export type RunTables = Readonly<Record<RawTable, string>>;

/** The tables of the runs a report reads, looked up once (`runTablesOf`). */
export interface RunTableSet {
  /** The runs asked for, each once, in the order first asked. */
  readonly runIds: readonly string[];
  /** A run's tables; only a run that was asked for has them. */
  of(runId: string): RunTables;
}

/**
 * Each run's partition of each raw table, or a relation with no rows where it has none (a
 * pruned run, or an id no run has), so that a query reads nothing rather than failing.
 * One catalog query, however many runs.
 *
 * Why a query that joins raw tables names the run's partitions instead of filtering the
 * parents by run: a filter the planner can prune on must be a constant on every table of
 * the join (a run reached through `runs`, a CTE or `= ANY` on one side is not), and a
 * constant filter on a table never analysed is guessed to keep a fraction of a percent of
 * its rows. Two such guesses in one join made Postgres pick nested loops that scan a whole
 * partition per outer row (minutes for 20,000 tasks). A partition read by name is planned
 * from its real size on disk when it has no statistics, and only it is read. Joins between
 * a run's partitions still match run_id: the primary keys lead with it, so a nested loop
 * can look the inner row up by the outer one.
 */
export async function runTablesOf(
  runner: SqlRunner,
  runIds: readonly string[],
): Promise<RunTableSet> {
  const unique = [...new Set(runIds)];
  const found = new Map<string, Partial<Record<RawTable, string>>>();
  for (const p of await runPartitions(runner, unique)) {
    let tables = found.get(p.runId);
    if (tables === undefined) {
      tables = {};
      found.set(p.runId, tables);
    }
    // ONLY a partitioned parent: no partition, so no rows, and it takes an alias or none.
    tables[p.table] = p.present ? p.name : `ONLY ${p.table}`;
  }
  const byRun = new Map<string, RunTables>();
  for (const runId of unique) byRun.set(runId, complete(runId, found.get(runId)));
  return {
    runIds: unique,
    of(runId) {
      const tables = byRun.get(runId);
      if (tables === undefined) throw new Error(`runTablesOf was not asked for run ${runId}`);
      return tables;
    },
  };
}

/** The catalog names every raw table for every run asked; anything less is a schema bug. */
function complete(runId: string, tables: Partial<Record<RawTable, string>> = {}): RunTables {
  if (isComplete(tables)) return tables;
  const missing = RAW_TABLES.filter((t) => tables[t] === undefined);
  throw new Error(
    `The store's catalog named no ${missing.join(", ")} partition for run ${runId}: ` +
      "its migrations and this version of assay disagree on the raw tables",
  );
}

function isComplete(tables: Partial<Record<RawTable, string>>): tables is RunTables {
  return RAW_TABLES.every((t) => tables[t] !== undefined);
}

/**
 * The rows of several runs, each read from its own partitions, in one statement: one
 * `UNION ALL` branch per run (`branch` is given the run's tables and the parameter that
 * holds its id, `$1` for the first run), ordered by `orderBy` over the branches' columns.
 * One statement rather than one per run: a trend of 30 runs would otherwise pay 30 round
 * trips. Each run is read once, however often it was asked for, as `run_id = ANY(...)` would.
 */
export async function queryEachRun<R>(
  runner: SqlRunner,
  tables: RunTableSet,
  branch: (tables: RunTables, runId: string) => string,
  orderBy: string,
): Promise<R[]> {
  if (tables.runIds.length === 0) return [];
  const branches = tables.runIds.map(
    (runId, i) => `(${branch(tables.of(runId), `$${i + 1}::text`)})`,
  );
  const { rows } = await runner.query<R>(
    `SELECT * FROM (${branches.join("\n  UNION ALL ")}) run_rows ORDER BY ${orderBy}`,
    [...tables.runIds],
  );
  return rows;
}

/** One run's tables, as `runTablesOf` gives them. */
export async function runTables(runner: SqlRunner, runId: string): Promise<RunTables> {
  return (await runTablesOf(runner, [runId])).of(runId);
}
