import { getTableColumns, getTableName, type Table } from "drizzle-orm";

/**
 * Some columns of one table, in a fixed order, named and typed as the schema says. Keys in
 * `D` are derived: a row does not carry them, their value is worked out from the row when
 * it is written.
 */
export interface ColumnList<K extends string = string, D extends K = never> {
  table: string;
  /** The schema's property names; a row object carries its values under these keys. */
  keys: readonly K[];
  /**
   * How each derived column's value follows from the row: a value made only to be written
   * is then never kept on a copy of the row (one object per result, written once).
   */
  derived: DerivedColumns<D>;
  /** SQL column names, in `keys` order. */
  names: readonly string[];
  /** SQL types (`text`, `integer`, `jsonb`, …), in `keys` order. */
  types: readonly string[];
}

/** A row whose values sit under a column list's keys. */
export type RowOf<K extends string> = { readonly [key in K]: unknown };

/** Derived columns' values, each read from the row written (which is any `RowOf` the list takes). */
export type DerivedColumns<D extends string> = { readonly [key in D]: (row: never) => unknown };

/**
 * Reads column names and types from the drizzle schema, so no statement spells a column
 * list or a parameter number by hand and a schema change reaches every bulk statement.
 */
export function columnList<
  T extends Table,
  K extends keyof T["_"]["columns"] & string,
  D extends K = never,
>(table: T, keys: readonly K[], derived?: DerivedColumns<D>): ColumnList<K, D> {
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
    derived: derived ?? ({} as DerivedColumns<D>),
  };
}

/** How a derived column's value follows from its row; undefined for a column the row carries. */
export function derivationOf(
  list: ColumnList,
  key: string,
): ((row: object) => unknown) | undefined {
  const derived: Readonly<Record<string, (row: object) => unknown>> = list.derived;
  return Object.hasOwn(derived, key) ? derived[key] : undefined;
}
