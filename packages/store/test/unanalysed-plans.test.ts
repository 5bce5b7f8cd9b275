import { DATABASE_URL, dropSchema, freshSchema } from "@assay/test-support/stores";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { driverOf } from "../src/driver.js";
import { openStore } from "../src/open-store.js";
import { pairedDifferences, refreshPlannerStatistics, reportBundle } from "../src/reports/index.js";
import { pgRunner, type SqlRunner } from "../src/sql-runner.js";
import type { Store } from "../src/store.js";

// Two runs of this many tasks: enough that a plan quadratic in the tasks takes minutes
// (it did: over 60 s at 100,000), while seeding them takes a second or two.
const TASKS = 20_000;
const SCORERS = ["exact", "f1", "verifier"];

interface PlanNode {
  "Node Type": string;
  "Relation Name"?: string;
  "CTE Name"?: string;
  Alias?: string;
  "Index Cond"?: string;
  "Recheck Cond"?: string;
  Plans?: PlanNode[];
}

// Nodes that read a table or a derived row set; any other leaf (a function over one row's
// JSON, a constant) is bounded by the row it is evaluated for.
const READS_ROWS = new Set(["Seq Scan", "CTE Scan", "WorkTable Scan", "Sample Scan", "Tid Scan"]);
const INDEX_SCANS = new Set(["Index Scan", "Index Only Scan", "Bitmap Heap Scan"]);

/**
 * Every nested loop whose inner side reads rows other than through an index looked up by
 * the outer row: rows × rows. An index scan on a constant (the run id) is no better.
 */
function quadraticJoins(node: PlanNode, found: string[] = []): string[] {
  const [outer, inner] = node.Plans ?? [];
  if (node["Node Type"] === "Nested Loop" && inner !== undefined && !oneRowPerRun(outer)) {
    for (const leaf of unboundedReads(inner)) found.push(`Nested Loop over ${leaf}`);
  }
  for (const child of node.Plans ?? []) quadraticJoins(child, found);
  return found;
}

// Tables keyed by the run alone: a lookup of the reported run reads at most one row.
const KEYED_BY_RUN = new Set(["runs", "run_rollups", "early_stop_rollups"]);

function oneRowPerRun(outer: PlanNode | undefined): boolean {
  return (
    outer !== undefined &&
    INDEX_SCANS.has(outer["Node Type"]) &&
    KEYED_BY_RUN.has(outer["Relation Name"] ?? "")
  );
}

function unboundedReads(node: PlanNode): string[] {
  const type = node["Node Type"];
  const name = `${type} ${node["Relation Name"] ?? node["CTE Name"] ?? ""}`.trim();
  if (INDEX_SCANS.has(type)) return lookedUpByOuterRow(node) ? [] : [name];
  if (READS_ROWS.has(type)) return [name];
  return (node.Plans ?? []).flatMap(unboundedReads);
}

/** Whether the index condition names a column of another relation (the outer row). */
function lookedUpByOuterRow(node: PlanNode): boolean {
  const bitmap = node.Plans?.[0];
  const condition = node["Index Cond"] ?? node["Recheck Cond"] ?? bitmap?.["Index Cond"] ?? "";
  const aliases = [...condition.matchAll(/\b([a-z_][a-z0-9_]*)\.[a-z_]/g)].map((m) => m[1]);
  return aliases.some((alias) => alias !== node.Alias);
}

let schema: string;
let store: Store;
let pool: pg.Pool;

beforeAll(async () => {
  schema = freshSchema();
  store = await openStore({ databaseUrl: DATABASE_URL, schema, migrate: true });
  // A quadratic plan takes minutes here; the timeout fails it in one, naming the statement.
  pool = new pg.Pool({
    connectionString: DATABASE_URL,
    options: `-c search_path=${schema} -c statement_timeout=60s`,
  });
  // Two running series of runs (no rollups yet: reports read the raw rows).
  await pool.query(
    `INSERT INTO runs (id, name, spec, transport) VALUES ('a', 'nightly', '{}', 'local'),
     ('b', 'nightly', '{}', 'local')`,
  );
  await pool.query("SELECT assay_create_run_partitions(id) FROM runs");
  // As on a server where autovacuum is off or far behind: no table has statistics. (The
  // partitioned parents take no storage parameters; autovacuum never analyses them.)
  const { rows } = await pool.query<{ name: string }>(
    `SELECT c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE n.nspname = $1 AND c.relkind = 'r'`,
    [schema],
  );
  for (const { name } of rows) {
    await pool.query(`ALTER TABLE "${name}" SET (autovacuum_enabled = false)`);
  }
  await pool.query(
    `INSERT INTO samples (run_id, sample_id, task_id, candidate_index, line, metadata)
     SELECT r, 't' || i, 't' || i, 0, i, jsonb_build_object('kind', 'k' || (i % 7))
     FROM unnest(ARRAY['a', 'b']) r, generate_series(1, $1) i`,
    [TASKS],
  );
  // The verifier's detail holds a trajectory that falls at every step (early stops).
  await pool.query(
    `INSERT INTO scores (run_id, sample_id, scorer, rule, status, value, detail)
     SELECT r, 't' || i, sc, 'default', 'scored', (i % 3) / 2.0,
            CASE sc WHEN 'verifier' THEN '{"progress": [0.9, 0.7, 0.5, 0.3]}'::jsonb END
     FROM unnest(ARRAY['a', 'b']) r, generate_series(1, $1) i, unnest($2::text[]) sc`,
    [TASKS, SCORERS],
  );
  await pool.query(
    `INSERT INTO usage (run_id, sample_id, role, model, input_tokens, cached_input_tokens,
                        output_tokens)
     SELECT r, 't' || i, 'generator', 'gen', 100, 0, 20
     FROM unnest(ARRAY['a', 'b']) r, generate_series(1, $1) i`,
    [TASKS],
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

/** Runs each statement the report sends, keeping its plan beside its text. */
function explainingRunner(plans: { text: string; plan: PlanNode }[]): SqlRunner {
  const runner = pgRunner(pool);
  return {
    async query<R>(text: string, params: unknown[] = []) {
      const { rows } = await pool.query(`EXPLAIN (FORMAT JSON) ${text}`, params);
      const plan = (rows[0] as { "QUERY PLAN": { Plan: PlanNode }[] })["QUERY PLAN"][0]?.Plan;
      plans.push({ text: text.replace(/\s+/g, " ").trim().slice(0, 80), plan: plan as PlanNode });
      return runner.query<R>(text, params);
    },
  };
}

/** The name of a run's partition of a raw table. */
async function partitionOf(table: string, runId: string): Promise<string> {
  const { rows } = await pool.query<{ name: string }>(
    "SELECT assay_run_partition($1, $2) AS name",
    [table, runId],
  );
  return rows[0]?.name ?? "";
}

async function analysed(table: string): Promise<boolean> {
  const { rows } = await pool.query<{ last: Date | null }>(
    "SELECT last_analyze AS last FROM pg_stat_user_tables WHERE schemaname = $1 AND relname = $2",
    [schema, table],
  );
  return rows[0]?.last != null;
}

describe("reporting two runs on tables the server never analysed", () => {
  it("plans no join quadratic in the rows, whatever the planner guesses", async () => {
    expect(await analysed(await partitionOf("scores", "a"))).toBe(false);
    const plans: { text: string; plan: PlanNode }[] = [];
    const bundle = await reportBundle(explainingRunner(plans), "a", {
      compareRunId: "b",
      by: "metadata.kind",
    });
    expect(bundle.comparison?.differences.map((d) => d.metric)).toEqual([
      "pass@1",
      "selected",
      "oracle",
      "exact",
      "f1",
      "verifier",
    ]);
    expect(bundle.earlyStops?.total).toBe(TASKS);
    // Every figure of both runs, the trend, early stops, the comparison and the slices.
    expect(plans.length).toBeGreaterThan(20);
    const quadratic = plans.flatMap(({ text, plan }) =>
      quadraticJoins(plan).map((join) => `${join} in: ${text}`),
    );
    expect(quadratic).toEqual([]);
  });

  it("pairs every task of both runs", async () => {
    const started = performance.now();
    const paired = await pairedDifferences(pgRunner(pool), "a", "b");
    const elapsed = performance.now() - started;
    const tasksOf = (p: (typeof paired)[number]) =>
      p.counted.differences.reduce((sum, d) => sum + d.count, 0);
    const metrics = paired.map((p) => [p.metric, tasksOf(p), tasksOf(p)]);
    expect(metrics).toEqual([
      ["pass@1", TASKS, TASKS],
      ["selected", TASKS, TASKS],
      ["oracle", TASKS, TASKS],
      ["exact", TASKS, TASKS],
      ["f1", TASKS, TASKS],
      ["verifier", TASKS, TASKS],
    ]);
    const selected = paired.find((p) => p.metric === "selected");
    // Run "a" picks correctly on odd tasks, run "b" on even ones: never both.
    // So every task picked right in one run differs by ±1, and those the same are 0 in both.
    const countOf = (value: number) =>
      selected?.counted.differences.find((d) => d.value === value)?.count ?? 0;
    expect(selected?.counted.currentSum).toBe(countOf(1));
    expect(selected?.counted.baselineSum).toBe(countOf(-1));
    // Measured: about 2 s here (a shared 2-core machine); the plan it replaced ran past 60 s
    // on 100,000 tasks.
    console.info(`compare of ${TASKS} unanalysed tasks: ${Math.round(elapsed)} ms`);
  });

  it("has statistics once refreshed, with the tables' real size", async () => {
    await refreshPlannerStatistics(driverOf(store), "written", "a");
    await refreshPlannerStatistics(driverOf(store), "derived", "a");
    for (const table of ["samples", "scores", "selections"]) {
      expect(await analysed(await partitionOf(table, "a")), table).toBe(true);
      // The parents had none: analysed, with every partition (Postgres recurses).
      expect(await inheritedStatistics(table), table).toBe(true);
    }
    expect(await analysed("run_rollups")).toBe(true);
    expect(await rowsOf(await partitionOf("scores", "a"))).toBe(TASKS * SCORERS.length);
  });

  it("analyses the parents again only once their rows have changed by a tenth", async () => {
    await refreshPlannerStatistics(driverOf(store), "written", "b");
    const parentRows = 2 * TASKS * SCORERS.length;
    expect(await rowsOf("scores")).toBe(parentRows);
    const more = async (n: number, from: number) =>
      pool.query(
        `INSERT INTO scores (run_id, sample_id, scorer, rule, status, value)
         SELECT 'b', 'extra' || i, 'exact', 'default', 'scored', 1
         FROM generate_series($1::int, $2::int) i`,
        [from, from + n - 1],
      );
    // Run b's scores grow by 1% of the parent's rows: its partition is analysed again, the
    // parent's statistics still hold and are kept.
    await more(parentRows / 100, 1);
    await refreshPlannerStatistics(driverOf(store), "written", "b");
    expect(await rowsOf(await partitionOf("scores", "b"))).toBe(
      TASKS * SCORERS.length + parentRows / 100,
    );
    expect(await rowsOf("scores")).toBe(parentRows);
    // Another 20%: the parent is analysed again.
    await more(parentRows / 5, parentRows);
    await refreshPlannerStatistics(driverOf(store), "written", "b");
    expect(await rowsOf("scores")).toBe(parentRows + parentRows / 100 + parentRows / 5);
  });
});

async function inheritedStatistics(table: string): Promise<boolean> {
  const { rows } = await pool.query(
    "SELECT 1 FROM pg_stats WHERE schemaname = $1 AND tablename = $2 AND inherited",
    [schema, table],
  );
  return rows.length > 0;
}

/** The rows the table's last ANALYZE counted. */
async function rowsOf(table: string): Promise<number> {
  const { rows } = await pool.query<{ reltuples: number }>(
    "SELECT reltuples FROM pg_class WHERE oid = quote_ident($1)::regclass",
    [table],
  );
  return Number(rows[0]?.reltuples);
}
