import { getTableColumns, getTableName, type Table } from "drizzle-orm";
import { getTableConfig } from "drizzle-orm/pg-core";
import type { RawTable } from "../run-partitions.js";
import { inputErrors, samples, selections, truncations, usage } from "../schema.js";
import type { SqlRunner } from "../sql-runner.js";

/**
 * The raw tables of a run that `assay export --table` writes besides its scores: enough to
 * recompute every report figure (labels and candidates from samples, tokens from usage,
 * cuts and refusals from truncations, picks from selections) without the report's queries.
 * Every raw table but `scores` (exported with each score's task, apart) is here: a raw
 * table added to RAW_TABLES and not here fails to compile. `task_rollup_chunks` is
 * partitioned too but derived from scores, samples and selections, so it is not exported.
 */
export const EXPORTED_TABLES = {
  samples,
  truncations,
  usage,
  selections,
  input_errors: inputErrors,
} as const satisfies Record<
  Exclude<RawTable, "scores" | "task_rollup_chunks"> | "input_errors",
  Table
>;

export type ExportedTable = keyof typeof EXPORTED_TABLES;

/** One exported row: SQL column names to values (jsonb as parsed JSON). */
export type ExportedRow = Record<string, unknown>;

const PAGE_SIZE = 5000;

interface TableLayout {
  /** SQL column names in schema order, without bookkeeping (`created_at`). */
  columns: string[];
  /** The columns a row is unique by, led by `run_id`: the keyset the pages walk. */
  key: string[];
}

/**
 * Columns and key come from the drizzle schema, so a column added to a table is exported
 * without touching this file. A table's key is its primary key, else its one unique
 * constraint (input errors are unique by run, file and line).
 */
export function tableLayout(table: Table): TableLayout {
  const config = getTableConfig(table);
  const columns = Object.values(getTableColumns(table))
    .map((column) => column.name)
    .filter((name) => name !== "created_at");
  const key =
    config.primaryKeys[0]?.columns.map((column) => column.name) ??
    config.uniqueConstraints[0]?.columns.map((column) => column.name);
  if (key === undefined || key[0] !== "run_id") {
    throw new Error(`${getTableName(table)} has no key led by run_id to page through`);
  }
  return { columns, key };
}

/** The columns `exportTableRows` writes for a table, and which of them hold numbers. */
export function exportedColumns(tableName: ExportedTable): { name: string; numeric: boolean }[] {
  const table = EXPORTED_TABLES[tableName];
  const { columns } = tableLayout(table);
  const byName = new Map(Object.values(getTableColumns(table)).map((c) => [c.name, c]));
  return columns.map((name) => ({ name, numeric: byName.get(name)?.dataType === "number" }));
}

/** Every row of one table for a run, in key order, a page at a time (keyset, no cursor). */
export async function* exportTableRows(
  runner: SqlRunner,
  tableName: ExportedTable,
  runId: string,
): AsyncGenerator<ExportedRow> {
  const table = EXPORTED_TABLES[tableName];
  const { columns, key } = tableLayout(table);
  const rest = key.slice(1);
  const name = getTableName(table);
  const select = `SELECT ${columns.map(quote).join(", ")} FROM ${quote(name)} WHERE run_id = $1`;
  const order = `ORDER BY ${rest.map(quote).join(", ")} LIMIT ${PAGE_SIZE}`;
  const placeholders = rest.map((_, i) => `$${i + 2}`).join(", ");
  const after = `(${rest.map(quote).join(", ")}) > (${placeholders})`;
  let last: ExportedRow | undefined;
  for (;;) {
    const { rows } =
      last === undefined
        ? await runner.query<ExportedRow>(`${select} ${order}`, [runId])
        : await runner.query<ExportedRow>(`${select} AND ${after} ${order}`, [
            runId,
            ...rest.map((column) => (last as ExportedRow)[column]),
          ]);
    yield* rows;
    last = rows.at(-1);
    if (last === undefined || rows.length < PAGE_SIZE) return;
  }
}

function quote(identifier: string): string {
  return `"${identifier.replaceAll('"', '""')}"`;
}
