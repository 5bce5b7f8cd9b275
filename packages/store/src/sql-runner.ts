import type { PGlite } from "@electric-sql/pglite";
import type pg from "pg";

export type StoreKind = "postgres" | "pglite";

export interface QueryResult<R> {
  rows: R[];
  /** Rows inserted, updated or deleted by the statement. */
  rowCount: number;
}

/**
 * The one raw-SQL seam shared by both drivers. Bulk paths go through here rather than
 * through drizzle's `sql` template, which would expand a JS array into one parameter per
 * element; here an array is a single Postgres array parameter.
 */
export interface SqlRunner {
  query<R = Record<string, unknown>>(text: string, params?: unknown[]): Promise<QueryResult<R>>;
}

/** A pool, or one connection of its own. */
export function pgRunner(db: pg.Pool | pg.ClientBase): SqlRunner {
  return {
    async query<R>(text: string, params: unknown[] = []) {
      const result = await db.query(text, params);
      return { rows: result.rows as R[], rowCount: result.rowCount ?? 0 };
    },
  };
}

export function pgliteRunner(client: PGlite): SqlRunner {
  return {
    async query<R>(text: string, params: unknown[] = []) {
      const result = await client.query<R>(text, params);
      return { rows: result.rows, rowCount: result.affectedRows ?? 0 };
    },
  };
}
