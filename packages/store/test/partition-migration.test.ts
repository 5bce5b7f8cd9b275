import { rmSync } from "node:fs";
import { DATABASE_URL, dropSchema, freshSchema } from "@assay/test-support/stores";
import { PGlite } from "@electric-sql/pglite";
import { drizzle as drizzlePg } from "drizzle-orm/node-postgres";
import { migrate as migratePg } from "drizzle-orm/node-postgres/migrator";
import { drizzle as drizzlePglite } from "drizzle-orm/pglite";
import { migrate as migratePglite } from "drizzle-orm/pglite/migrator";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { migrationsFolder } from "../src/migrations.js";
import { openStore } from "../src/open-store.js";
import { migrationsUpTo } from "./migrations-up-to.js";

// Migration 0015 moves a store's raw tables into per-run partitions: a store migrated to
// 0014 and filled with several runs holds, once migrated to head, the same rows, each run
// in its own partitions, the same keys and indexes, working views, and (on the server,
// through the store) the same report figures as a store made at head with the same rows.

const PARENTS = ["samples", "scores", "truncations", "usage", "selections"];
// Ids a partition name could not hold as they are: quotes, spaces, case, length.
const RUN_IDS = ["night-1", `it's "odd" Run`, "x".repeat(120)];

const lit = (text: string) => `'${text.replaceAll("'", "''")}'`;

/** The runs rows, as a store at 0014 or at head holds them. */
function runsSql(): string {
  return RUN_IDS.map(
    (id, i) =>
      `INSERT INTO runs (id, name, dataset, spec, transport, created_at, finished_at)
       VALUES (${lit(id)}, 'nightly', 'd.jsonl', '{"selection":{"verifier":"judge"}}', 'local',
               '2026-01-0${i + 1}T00:00:00Z', '2026-01-0${i + 1}T01:00:00Z');`,
  ).join("\n");
}

/** Each run's raw rows: 40 tasks of two candidates, scored by two scorers. */
function rawRowsSql(): string {
  return RUN_IDS.map((id, i) => {
    const run = lit(id);
    return `
      INSERT INTO samples (run_id, sample_id, task_id, candidate_index, label, line, metadata)
      SELECT ${run}, 't' || t || '#' || c, 't' || t, c, (t + c + ${i}) % 3 <> 0, t + 1, '{}'
      FROM generate_series(0, 39) t, generate_series(0, 1) c;
      INSERT INTO scores (run_id, sample_id, scorer, criterion, repetition, rule, status, value,
                          reason, detail)
      SELECT ${run}, sample_id, s, '', 0, 'default',
             CASE WHEN line % 7 = 0 AND s = 'judge' THEN 'unscored' ELSE 'scored' END,
             CASE WHEN line % 7 = 0 AND s = 'judge' THEN NULL
                  ELSE ((line * 13 + candidate_index * 5 + ${i}) % 11) / 10.0 END,
             CASE WHEN line % 7 = 0 AND s = 'judge' THEN 'overflow' END,
             CASE WHEN s = 'judge' THEN jsonb_build_object('progress',
                  jsonb_build_array(0.9, 0.8, 0.7, 0.6 - candidate_index * 0.1)) END
      FROM samples, unnest(ARRAY['exact', 'judge']) s WHERE run_id = ${run};
      INSERT INTO truncations (run_id, sample_id, scorer, criterion, repetition, original_tokens,
                               kept_tokens, dropped_tokens, slot, policy)
      SELECT ${run}, sample_id, 'judge', '', 0, 1000 + line, 1000 - (line % 4) * 100,
             line + (line % 4) * 100, 'answer', 'head'
      FROM samples WHERE run_id = ${run};
      INSERT INTO usage (run_id, sample_id, role, model, input_tokens, cached_input_tokens,
                         output_tokens, scorer)
      SELECT ${run}, sample_id, 'generator', 'Qwen3-8B', 100 + line, line % 5, 50, ''
      FROM samples WHERE run_id = ${run};
      INSERT INTO selections (run_id, task_id, method, candidates, selected_index,
                              selected_sample_id, tie, selected_correct, first_correct,
                              any_correct, detail)
      SELECT ${run}, task_id, 'best_of_n', 2, min(candidate_index), min(sample_id), false,
             bool_and(label), bool_and(label), bool_or(label), '{}'
      FROM samples WHERE run_id = ${run} GROUP BY task_id;
      INSERT INTO input_errors (run_id, file, line, field, message)
      VALUES (${run}, 'd.jsonl', 99, 'answer', 'missing');`;
  }).join("\n");
}

interface Sql {
  rows<R>(text: string): Promise<R[]>;
  exec(text: string): Promise<void>;
}

/** Everything seeded, in a fixed order, without the times the database chose. */
async function contents(sql: Sql): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  for (const table of [...PARENTS, "input_errors"]) {
    const rows = await sql.rows<{ row: string }>(
      `SELECT (to_jsonb(t) - 'created_at')::text AS row FROM ${table} t ORDER BY 1`,
    );
    out[table] = rows.map((r) => r.row);
  }
  return out;
}

/** The parents' keys and indexes by name, and what the views answer. */
async function shape(sql: Sql): Promise<unknown> {
  const indexes = await sql.rows<{ name: string }>(
    `SELECT indexname AS name FROM pg_indexes
     WHERE schemaname = current_schema() AND tablename = ANY (ARRAY['${PARENTS.join("','")}'])
     ORDER BY 1`,
  );
  const views: Record<string, unknown> = {};
  for (const view of ["analyst_samples", "analyst_truncations", "analyst_runs"]) {
    views[view] = await sql.rows(
      `SELECT (to_jsonb(v) - 'created_at')::text AS row FROM ${view} v ORDER BY 1`,
    );
  }
  return { indexes: indexes.map((i) => i.name), views };
}

/** Whether every row of every run lies in that run's own partition, one per run and table. */
async function expectOwnPartitions(sql: Sql): Promise<void> {
  for (const parent of PARENTS) {
    const misplaced = await sql.rows(
      `SELECT run_id FROM ${parent}
       WHERE tableoid::regclass::text <> quote_ident(assay_run_partition('${parent}', run_id))`,
    );
    expect(misplaced, parent).toEqual([]);
    const partitions = await sql.rows<{ bound: string }>(
      `SELECT pg_get_expr(c.relpartbound, c.oid) AS bound
       FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
       WHERE i.inhparent = '${parent}'::regclass ORDER BY 1`,
    );
    expect(partitions.map((p) => p.bound)).toEqual(
      RUN_IDS.map((id) => `FOR VALUES IN (${lit(id)})`).sort(),
    );
  }
}

/** Sums the server adds in another row order may differ in the last bits. */
function rounded(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value), (_key, v: unknown) =>
    typeof v === "number" ? Number(v.toPrecision(12)) : v,
  );
}

const folder = migrationsUpTo(14);
afterAll(() => rmSync(folder, { recursive: true, force: true }));

describe("migration 0015 on postgres", () => {
  const [old, head] = [freshSchema(), freshSchema()];
  const pools = [old, head].map(
    (schema) =>
      new pg.Pool({ connectionString: DATABASE_URL, options: `-c search_path=${schema}` }),
  );
  afterAll(async () => {
    await Promise.all(pools.map((p) => p.end()));
    await Promise.all([old, head].map((s) => dropSchema(s)));
  });
  const sqlOf = (pool: pg.Pool): Sql => ({
    rows: async (text) => (await pool.query(text)).rows,
    exec: async (text) => {
      await pool.query(text);
    },
  });

  it("moves each run's rows into its partitions and reports the same figures", async () => {
    const [oldPool, headPool] = pools as [pg.Pool, pg.Pool];
    const [oldSql, headSql] = [sqlOf(oldPool), sqlOf(headPool)];
    await oldSql.exec(`CREATE SCHEMA ${old}`);
    await migratePg(drizzlePg(oldPool), { migrationsFolder: folder, migrationsSchema: old });
    await oldSql.exec(runsSql() + rawRowsSql());
    await migratePg(drizzlePg(oldPool), {
      migrationsFolder: migrationsFolder(),
      migrationsSchema: old,
    });

    // The same rows made at head: runs first, their partitions, then the raw rows.
    await headSql.exec(`CREATE SCHEMA ${head}`);
    await migratePg(drizzlePg(headPool), {
      migrationsFolder: migrationsFolder(),
      migrationsSchema: head,
    });
    await headSql.exec(runsSql());
    await headSql.exec("SELECT assay_create_run_partitions(id) FROM runs");
    await headSql.exec(rawRowsSql());

    expect(await contents(oldSql)).toEqual(await contents(headSql));
    expect(await shape(oldSql)).toEqual(await shape(headSql));
    await expectOwnPartitions(oldSql);

    const figures = async (schema: string) => {
      // Migrated above by drizzle alone: the store's own migrate adds the analyst views file.
      const store = await openStore({ databaseUrl: DATABASE_URL, schema, migrate: true });
      try {
        const out: unknown[] = [];
        for (const id of RUN_IDS) {
          out.push(await store.reportBundle(id));
          await store.writeRollups(id);
          out.push(await store.reportBundle(id), await store.runSummary(id));
        }
        return out;
      } finally {
        await store.close();
      }
    };
    const migrated = rounded(await figures(old));
    expect(migrated).toEqual(rounded(await figures(head)));
    expect(JSON.stringify(migrated)).toContain('"tasks":40');
  });
});

describe("migration 0015 on pglite", () => {
  it("moves each run's rows into its partitions, keys, indexes and views alike", async () => {
    const open = async () => {
      const client = new PGlite();
      const sql: Sql = {
        rows: async (text) => (await client.query(text)).rows as never,
        exec: async (text) => {
          await client.exec(text);
        },
      };
      return { client, sql, db: drizzlePglite(client) };
    };
    const [old, head] = [await open(), await open()];
    try {
      await migratePglite(old.db, { migrationsFolder: folder, migrationsSchema: "drizzle" });
      await old.sql.exec(runsSql() + rawRowsSql());
      await migratePglite(old.db, {
        migrationsFolder: migrationsFolder(),
        migrationsSchema: "drizzle",
      });
      await migratePglite(head.db, {
        migrationsFolder: migrationsFolder(),
        migrationsSchema: "drizzle",
      });
      await head.sql.exec(runsSql());
      await head.sql.exec("SELECT assay_create_run_partitions(id) FROM runs");
      await head.sql.exec(rawRowsSql());

      expect(await contents(old.sql)).toEqual(await contents(head.sql));
      expect(await shape(old.sql)).toEqual(await shape(head.sql));
      await expectOwnPartitions(old.sql);
    } finally {
      await Promise.all([old.client.close(), head.client.close()]);
    }
  });
});
