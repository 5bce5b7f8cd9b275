/**
 * Report query benchmark (`npm run bench:report`): Postgres with 1,000,000 score rows over
 * 100,000 tasks in one run (plus nine small runs of the same series for the trend), median
 * of 5 runs of each report query, printed with the indexes its plan uses. Target: each
 * ≤ 500 ms. Baseline in the same run: a bare count(*) of the run's scores.
 */

import { parseArgs } from "node:util";
import { readEnv } from "@assay/core";
import { selectForRun } from "@assay/pipeline";
import { openStore } from "@assay/store";
import { lastRuns, reportBundle, runnerOf, runReports, runTrend } from "@assay/store/reports";
import pg from "pg";
import type { SqlRunner } from "../../packages/store/src/sql-runner.js";
import { fmt, median, timed } from "./bench-util.js";
import { seedBenchRun } from "./report-data.js";

const DATABASE_URL = readEnv().DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";
const SCHEMA = "assay_bench_report";
const TASKS = 100_000;
const SMALL_TASKS = 1_000;
const REPEATS = 5;
const TARGET_MS = 500;

// --keep leaves the data in place afterwards; --reuse starts from data a --keep run left.
const { values: flags } = parseArgs({
  options: { keep: { type: "boolean" }, reuse: { type: "boolean" } },
});
const admin = new pg.Client({ connectionString: DATABASE_URL });
await admin.connect();
if (flags.reuse !== true) await admin.query(`DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE`);
const store = await openStore({
  databaseUrl: DATABASE_URL,
  schema: SCHEMA,
  migrate: true,
  poolSize: 4,
});
if (store.driver.kind !== "postgres") throw new Error("the report bench needs Postgres");
const pool = store.driver.pool;

try {
  if (flags.reuse !== true) await seed();
  await admin.query(
    `VACUUM ANALYZE ${SCHEMA}.scores, ${SCHEMA}.samples, ${SCHEMA}.usage, ${SCHEMA}.truncations, ${SCHEMA}.selections, ${SCHEMA}.runs`,
  );
  await report();
} finally {
  await store.close();
  if (flags.keep !== true) await admin.query(`DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE`);
  await admin.end();
}

async function seed(): Promise<void> {
  const seeded = await timed(async () => {
    const client = await pool.connect();
    try {
      for (let i = 1; i <= 9; i += 1) {
        await seedBenchRun(client, `small-${i}`, SMALL_TASKS, `2026-01-0${i}T00:00:00Z`);
      }
      await seedBenchRun(client, "bench", TASKS, "2026-01-10T00:00:00Z");
    } finally {
      client.release();
    }
  });
  const scores = await admin.query(
    `SELECT count(*)::int AS n FROM ${SCHEMA}.scores WHERE run_id = 'bench'`,
  );
  console.log(
    `seeded ${fmt(scores.rows[0].n)} score rows of run bench (${fmt(TASKS)} tasks) in ${fmt(seeded.ms / 1000, 1)} s`,
  );

  const selected = await timed(async () => {
    for (let i = 1; i <= 9; i += 1)
      await selectForRun(store, `small-${i}`, { verifierScorer: "judge", checkScorer: "exact" });
    return selectForRun(store, "bench", { verifierScorer: "judge", checkScorer: "exact" });
  });
  console.log(
    `selectForRun over ${fmt(TASKS + 9 * SMALL_TASKS)} tasks: ${fmt(selected.ms / 1000, 1)} s ` +
      `(pass@1 ${fmt((selected.value.pass1.rate ?? 0) * 100, 1)}%, selected ${fmt((selected.value.selected.rate ?? 0) * 100, 1)}%, oracle ${fmt((selected.value.oracle.rate ?? 0) * 100, 1)}%)`,
  );
}

async function report(): Promise<void> {
  const runner = runnerOf(store.driver);
  const prices = {
    currency: "USD",
    models: {
      "deepseek-v4-flash": {
        input_per_million: 0.14,
        cached_input_per_million: 0.028,
        output_per_million: 0.28,
      },
      "qwen3-verifier": { gpu_hour: 2.5 },
    },
  };
  const baseline = await measure(runner, "baseline: count(*) of the run's scores", (r) =>
    r.query("SELECT count(*) FROM scores WHERE run_id = $1", ["bench"]),
  );

  // Each report query, alone: the capturing runner records its SQL for EXPLAIN.
  const queries: [string, (r: SqlRunner) => Promise<unknown>][] = [
    ["full report of run bench (5 queries)", (r) => runReports(r, ["bench"], { prices })],
    [
      "trend: last 10 runs of series nightly",
      (r) => runTrend(r, { name: "nightly", last: 10 }, { prices }),
    ],
    ["report bundle (report + trend)", (r) => reportBundle(r, "bench", { prices })],
    ["last runs of a series", (r) => lastRuns(r, { name: "nightly", last: 10 })],
  ];
  const results = [baseline];
  for (const [name, work] of queries) results.push(await measure(runner, name, work));

  console.log("\nPer-statement medians and plans:");
  for (const result of results.slice(1, 2)) {
    for (const statement of result.statements) {
      const ms = await medianOf(() => runner.query(statement.text, statement.params));
      console.log(
        `  ${fmt(ms, 1).padStart(8)} ms  ${statement.label.padEnd(16)} ${await planSummary(statement.text, statement.params)}`,
      );
    }
  }
  console.log("\nReport queries (median of 5):");
  for (const r of results) {
    const verdict = r === baseline ? "" : r.ms <= TARGET_MS ? "  ok" : `  OVER ${TARGET_MS} ms`;
    console.log(
      `  ${fmt(r.ms, 1).padStart(8)} ms  ${(r.ms / baseline.ms).toFixed(1).padStart(5)}× baseline  ${r.name}${verdict}`,
    );
  }
}

interface Statement {
  label: string;
  text: string;
  params: unknown[];
}

async function measure(runner: SqlRunner, name: string, work: (r: SqlRunner) => Promise<unknown>) {
  const statements: Statement[] = [];
  const capturing: SqlRunner = {
    query(text, params = []) {
      if (!statements.some((s) => s.text === text))
        statements.push({ label: labelOf(text), text, params });
      return runner.query(text, params);
    },
  };
  await work(capturing); // warm-up, and records the statements
  const ms = await medianOf(() => work(runner));
  return { name, ms, statements };
}

async function medianOf(work: () => Promise<unknown>): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < REPEATS; i += 1) times.push((await timed(work)).ms);
  return median(times);
}

function labelOf(text: string): string {
  const from = /FROM\s+(\w+)/i.exec(text)?.[1] ?? "?";
  return `[${from}]`;
}

interface PlanNode {
  "Node Type": string;
  "Relation Name"?: string;
  "Index Name"?: string;
  Plans?: PlanNode[];
}

/** The scans of a plan, e.g. "Index Only Scan selections_pkey; Seq Scan usage". */
async function planSummary(text: string, params: unknown[]): Promise<string> {
  const { rows } = await pool.query(`EXPLAIN (FORMAT JSON) ${text}`, params);
  const scans: string[] = [];
  const walk = (node: PlanNode): void => {
    if (node["Node Type"].includes("Scan")) {
      scans.push(
        `${node["Node Type"]} ${node["Index Name"] ?? node["Relation Name"] ?? ""}`.trim(),
      );
    }
    for (const child of node.Plans ?? []) walk(child);
  };
  walk((rows[0]["QUERY PLAN"] as { Plan: PlanNode }[])[0]?.Plan as PlanNode);
  return [...new Set(scans)].join("; ");
}
