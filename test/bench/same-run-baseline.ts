import { createReadStream, createWriteStream } from "node:fs";
import { join } from "node:path";
import { pipeline } from "node:stream/promises";
import { openStore, type Store, schema } from "@assay/store";
import { driverOf } from "@assay/store/driver";
import { dropSchema } from "@assay/test-support/stores";
import { getTableColumns, getTableName, type Table } from "drizzle-orm";
import pg from "pg";
import { from as copyFrom, to as copyTo } from "pg-copy-streams";
import { timed } from "./bench-util.js";

// bench:local's yardstick on Postgres: the fastest plain load of exactly the rows a run
// stored, into the same tables with the same indexes, followed by the completion work the
// run does (planner statistics, rollups). The rows are taken from the run itself (COPY TO),
// so they are byte for byte what it stored; the tables come from the store's migrations and
// the run row from `startRun`, so the baseline follows any change to how runs are stored.

/** The tables a run writes row by row, as the schema declares them. */
const WRITTEN = [
  schema.samples,
  schema.scores,
  schema.usage,
  schema.truncations,
  schema.inputErrors,
];

/** One table's rows of a run, as COPY text in a file. */
interface CapturedTable {
  table: string;
  columns: string[];
  file: string;
  rows: number;
}

/** What a stored run holds: its run row's spec and counts, and every row it wrote. */
export interface CapturedRun {
  runId: string;
  spec: unknown;
  planned: { results: number; modelResults: number };
  tables: CapturedTable[];
}

/** Copies the run's rows out of the database at `databaseUrl` into files under `dir`. */
export async function captureRun(
  databaseUrl: string,
  runId: string,
  dir: string,
): Promise<CapturedRun> {
  const store = await openStore({ databaseUrl, create: false });
  let run: Awaited<ReturnType<Store["getRun"]>>;
  try {
    run = await store.getRun(runId);
  } finally {
    await store.close();
  }
  if (run === undefined) throw new Error(`run ${runId} is not in ${databaseUrl}`);
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const tables: CapturedTable[] = [];
    for (const table of WRITTEN) {
      const name = getTableName(table);
      const columns = columnNames(table);
      const file = join(dir, `${runId}-${name}.copy`);
      const select = `SELECT ${columns.join(", ")} FROM ${name} WHERE run_id = ${client.escapeLiteral(runId)}`;
      const out = client.query(copyTo(`COPY (${select}) TO STDOUT`));
      await pipeline(out, createWriteStream(file));
      tables.push({ table: name, columns, file, rows: out.rowCount });
    }
    return {
      runId,
      spec: run.spec,
      planned: { results: run.plannedResults ?? 0, modelResults: run.plannedModelResults ?? 0 },
      tables,
    };
  } finally {
    await client.end();
  }
}

/** Every stored column of a table (generated ones are the database's to fill). */
function columnNames(table: Table): string[] {
  return Object.values(getTableColumns(table))
    .filter((column) => column.generated === undefined)
    .map((column) => column.name);
}

/**
 * Loads the captured run into a new schema `schemaName` of the database at `databaseUrl`,
 * migrated by the store, and completes it as `assay run` does; returns the milliseconds
 * from `startRun` to the rollups written. The schema is dropped after.
 */
export async function replayRun(
  databaseUrl: string,
  schemaName: string,
  captured: CapturedRun,
): Promise<number> {
  await dropSchema(schemaName, databaseUrl);
  const store = await openStore({ databaseUrl, schema: schemaName, migrate: true });
  try {
    const { ms } = await timed(() => loadRun(store, captured));
    return ms;
  } finally {
    await store.close();
    await dropSchema(schemaName, databaseUrl);
  }
}

async function loadRun(store: Store, captured: CapturedRun): Promise<void> {
  const { runId } = captured;
  await store.startRun({ id: runId, spec: captured.spec, transport: "local" });
  await store.setPlanned(runId, captured.planned);
  const driver = driverOf(store);
  if (driver.kind !== "postgres") throw new Error("the same-run baseline is for Postgres");
  const client = await driver.pool.connect();
  try {
    for (const { table, columns, file, rows } of captured.tables) {
      if (rows === 0) continue;
      const copy = client.query(copyFrom(`COPY ${table} (${columns.join(", ")}) FROM STDIN`));
      await pipeline(createReadStream(file), copy);
    }
  } finally {
    client.release();
  }
  // What `completeRun` does after the last result, selection aside (bench:local asks none).
  await store.finishRun(runId);
  await store.refreshPlannerStatistics("written", runId);
  await store.writeRollups(runId);
}
