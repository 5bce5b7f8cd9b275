import { DATABASE_URL, dropSchema, freshSchema } from "@assay/test-support/stores";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openStore } from "../src/open-store.js";
import { pairedTaskValues, refreshPlannerStatistics } from "../src/reports/index.js";
import { pgRunner, type SqlRunner } from "../src/sql-runner.js";
import type { Store } from "../src/store.js";

// Two runs of this many tasks: enough that a plan quadratic in the tasks takes minutes
// (it did: over 60 s at 100,000), while seeding them takes a second.
const TASKS = 20_000;
const SCORERS = ["exact", "f1"];

interface PlanNode {
  "Node Type": string;
  "Relation Name"?: string;
  Plans?: PlanNode[];
}

// A nested loop is linear in its outer rows only when each inner lookup goes through an
// index (Memoize caches such lookups); over anything else it is rows × rows.
const INDEX_LOOKUPS = new Set(["Index Scan", "Index Only Scan", "Bitmap Heap Scan"]);

function quadraticJoins(node: PlanNode, found: string[] = []): string[] {
  if (node["Node Type"] === "Nested Loop") {
    let inner = node.Plans?.[1];
    while (inner?.["Node Type"] === "Memoize") inner = inner.Plans?.[0];
    if (inner === undefined || !INDEX_LOOKUPS.has(inner["Node Type"])) {
      found.push(`Nested Loop over ${inner?.["Node Type"]} ${inner?.["Relation Name"] ?? ""}`);
    }
  }
  for (const child of node.Plans ?? []) quadraticJoins(child, found);
  return found;
}

let schema: string;
let store: Store;
let pool: pg.Pool;

beforeAll(async () => {
  schema = freshSchema();
  store = await openStore({ databaseUrl: DATABASE_URL, schema, migrate: true });
  pool = new pg.Pool({ connectionString: DATABASE_URL, options: `-c search_path=${schema}` });
  // As on a server where autovacuum is off or far behind: no table has statistics.
  const { rows } = await pool.query<{ name: string }>(
    "SELECT tablename AS name FROM pg_tables WHERE schemaname = $1",
    [schema],
  );
  for (const { name } of rows) {
    await pool.query(`ALTER TABLE "${name}" SET (autovacuum_enabled = false)`);
  }
  await pool.query(
    `INSERT INTO samples (run_id, sample_id, task_id, candidate_index, line, metadata)
     SELECT r, 't' || i, 't' || i, 0, i, '{}' FROM unnest(ARRAY['a', 'b']) r, generate_series(1, $1) i`,
    [TASKS],
  );
  await pool.query(
    `INSERT INTO scores (run_id, sample_id, scorer, rule, status, value)
     SELECT r, 't' || i, sc, 'default', 'scored', (i % 3) / 2.0
     FROM unnest(ARRAY['a', 'b']) r, generate_series(1, $1) i, unnest($2::text[]) sc`,
    [TASKS, SCORERS],
  );
  await pool.query(
    `INSERT INTO selections (run_id, task_id, method, candidates, selected_index, tie,
                             first_correct, any_correct, selected_correct, detail)
     SELECT r, 't' || i, 'argmax', 1, 0, false, i % 2 = 0, true,
            CASE r WHEN 'a' THEN i % 2 = 1 ELSE i % 2 = 0 END, '{}'
     FROM unnest(ARRAY['a', 'b']) r, generate_series(1, $1) i`,
    [TASKS],
  );
});

afterAll(async () => {
  await pool?.end();
  await store?.close();
  if (schema !== undefined) await dropSchema(schema);
});

/** The plan of each statement `pairedTaskValues` sends, in place of its rows. */
async function comparePlans(): Promise<PlanNode[]> {
  const plans: PlanNode[] = [];
  const explaining: SqlRunner = {
    async query<R>(text: string, params: unknown[] = []) {
      const { rows } = await pool.query(`EXPLAIN (FORMAT JSON) ${text}`, params);
      plans.push(
        (rows[0] as { "QUERY PLAN": { Plan: PlanNode }[] })["QUERY PLAN"][0]?.Plan as PlanNode,
      );
      return { rows: [] as R[], rowCount: 0 };
    },
  };
  await pairedTaskValues(explaining, "a", "b");
  return plans;
}

async function analysed(table: string): Promise<boolean> {
  const { rows } = await pool.query<{ last: Date | null }>(
    "SELECT last_analyze AS last FROM pg_stat_user_tables WHERE schemaname = $1 AND relname = $2",
    [schema, table],
  );
  return rows[0]?.last != null;
}

describe("comparing two runs on tables the server never analysed", () => {
  it("plans no nested loop except index lookups, whatever the planner guesses", async () => {
    expect(await analysed("scores")).toBe(false);
    const plans = await comparePlans();
    expect(plans).toHaveLength(2);
    for (const plan of plans) expect(quadraticJoins(plan)).toEqual([]);
  });

  it("pairs every task of both runs", async () => {
    const started = performance.now();
    const paired = await pairedTaskValues(pgRunner(pool), "a", "b");
    const elapsed = performance.now() - started;
    const metrics = paired.map((p) => [p.metric, p.current.length, p.baseline.length]);
    expect(metrics).toEqual([
      ["pass@1", TASKS, TASKS],
      ["selected", TASKS, TASKS],
      ["oracle", TASKS, TASKS],
      ["exact", TASKS, TASKS],
      ["f1", TASKS, TASKS],
    ]);
    const selected = paired.find((p) => p.metric === "selected");
    // Run "a" picks correctly on odd tasks, run "b" on even ones: never both.
    expect(selected?.current.some((v, i) => v === 1 && selected.baseline[i] === 1)).toBe(false);
    // Measured: about 0.5 s here; the plan it replaced ran past 60 s on 100,000 tasks.
    console.info(`compare of ${TASKS} unanalysed tasks: ${Math.round(elapsed)} ms`);
  });

  it("has statistics once refreshed, with the tables' real size", async () => {
    await refreshPlannerStatistics(store.driver, "written");
    await refreshPlannerStatistics(store.driver, "derived");
    for (const table of ["samples", "scores", "selections", "run_rollups"]) {
      expect(await analysed(table), table).toBe(true);
    }
    const { rows } = await pool.query<{ reltuples: number }>(
      "SELECT reltuples FROM pg_class WHERE oid = 'scores'::regclass",
    );
    expect(rows[0]?.reltuples).toBe(2 * TASKS * SCORERS.length);
  });
});
