import type { SQL } from "drizzle-orm";
import { PgDialect } from "drizzle-orm/pg-core";
import type { QueryResult, SqlRunner } from "./sql-runner.js";

const dialect = new PgDialect();

/**
 * Runs a drizzle `sql` template, whose column objects spell the schema's names, on a
 * SqlRunner. An array meant as one Postgres array parameter goes in as `sql.param(array)`:
 * a bare array would become one parameter per element.
 */
export function querySql<R = Record<string, unknown>>(
  runner: SqlRunner,
  query: SQL,
): Promise<QueryResult<R>> {
  const { text, params } = sqlQuery(query);
  return runner.query<R>(text, params);
}

/** A drizzle `sql` template as text and parameters (`$1`, `$2`, …). */
export function sqlQuery(query: SQL): { text: string; params: unknown[] } {
  const { sql: text, params } = dialect.sqlToQuery(query);
  return { text, params };
}

/** A drizzle `sql` template as text with its parameters written in as literals. */
export function inlinedSql(query: SQL): string {
  return dialect.sqlToQuery(query.inlineParams()).sql;
}
