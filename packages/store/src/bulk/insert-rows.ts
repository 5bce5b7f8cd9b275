import type { RowSource } from "./bulk-statement.js";
import type { ColumnList } from "./column-list.js";

/**
 * `INSERT INTO <table> (<columns>) SELECT … ON CONFLICT DO NOTHING` from a row source:
 * every bulk write is idempotent, so a redelivered batch is a no-op.
 */
export function insertRows(
  list: ColumnList,
  from: RowSource,
  alias = `${list.table}_rows`,
): string {
  const names = list.names.join(", ");
  return `INSERT INTO ${list.table} (${names}) SELECT ${names} FROM ${from(list, alias)} ON CONFLICT DO NOTHING`;
}

/** `insertRows`, answering how many rows were new (a BulkInsertStatement of one table). */
export function countedInsert(list: ColumnList, from: RowSource): string {
  return `WITH inserted AS (${insertRows(list, from)} RETURNING 1)
    SELECT count(*)::int AS inserted FROM inserted`;
}
