import { getTableColumns, getTableName, type Table } from "drizzle-orm";

/** Some columns of one table, in a fixed order, named and typed as the schema says. */
export interface ColumnList<K extends string = string> {
  table: string;
  /** The schema's property names; a row object carries its values under these keys. */
  keys: readonly K[];
  /** SQL column names, in `keys` order. */
  names: readonly string[];
  /** SQL types (`text`, `integer`, `jsonb`, …), in `keys` order. */
  types: readonly string[];
}

/** A row whose values sit under a column list's keys. */
export type RowOf<K extends string> = { readonly [key in K]: unknown };

/**
 * Reads column names and types from the drizzle schema, so no statement spells a column
 * list or a parameter number by hand and a schema change reaches every bulk statement.
 */
export function columnList<T extends Table, K extends keyof T["_"]["columns"] & string>(
  table: T,
  keys: readonly K[],
): ColumnList<K> {
  const columns = getTableColumns(table);
  const picked = keys.map((key) => {
    const column = columns[key];
    if (column === undefined) throw new Error(`${getTableName(table)} has no column ${key}`);
    return column;
  });
  return {
    table: getTableName(table),
    keys,
    names: picked.map((column) => column.name),
    types: picked.map((column) => column.getSQLType()),
  };
}
