import type { PGlite } from "@electric-sql/pglite";
import type pg from "pg";

/** The raw client behind a store. */
export type StoreDriver =
  | { kind: "postgres"; pool: pg.Pool; schema: string | undefined }
  | { kind: "pglite"; client: PGlite; schema: string | undefined };
