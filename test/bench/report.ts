/**
 * Report query benchmark (`npm run bench:report`): a nightly series of runs (default 30
 * runs, 10,000,000 score rows in all) generated server-side, then the report bundle of the
 * newest run (its report, the trend over every run of the series, early stops) measured
 * twice in the same process: from raw rows (as for runs still running, before any rollup
 * exists) and from the rollups written when the runs complete. Median of --repeats runs.
 * Targets: every statement of the bundle ≤ 100 ms, the whole bundle ≤ 300 ms, every ready query
 * of docs/analyst-views.md ≤ 100 ms with no plan reading `scores`. Then the same
 * on PGlite at --pglite-rows.
 *
 *   --rows N         score rows over all runs (default 10,000,000; 0 skips Postgres)
 *   --runs N         runs in the series (default 30)
 *   --pglite-rows N  score rows for the PGlite pass (default 1,000,000; 0 skips it)
 *   --repeats N      timed runs of each query (default 5)
 *   --keep / --reuse leave the Postgres data in place / start from data a --keep run left
 *   --schema NAME    Postgres schema of the data (default assay_bench_report)
 *   --database NAME  create this database on the server of $DATABASE_URL for the data and
 *                    drop it at the end (unless --keep), so 10M rows never sit in the test
 *                    database; without it the schema lives in $DATABASE_URL's database
 */

import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isDeepStrictEqual, parseArgs } from "node:util";
import { selectForRun } from "@assay/pipeline";
import { openStore, type Store } from "@assay/store";
import { driverOf } from "@assay/store/driver";
import type { SqlRunner } from "@assay/store/reports";
import {
  dropRollups,
  earlyStops,
  importPrices,
  lastRuns,
  rawRunFigures,
  reportBundle,
  runFigures,
  runnerOf,
  writeRollups,
} from "@assay/store/reports";
import { DATABASE_URL } from "@assay/test-support/database-url";
import pg from "pg";
import { planReadsScores, RAW_PASS_RATE, readyQueries } from "./analyst-queries.js";
import { fmt, median, timed } from "./bench-util.js";
import { seedBenchRun, seedBenchSelections } from "./report-data.js";

const STATEMENT_TARGET_MS = 100;
const BUNDLE_TARGET_MS = 300;
/** Score rows per task: 5 candidates, a verifier and a check score each. */
const ROWS_PER_TASK = 10;

const { values: flags } = parseArgs({
  options: {
    rows: { type: "string", default: "10000000" },
    runs: { type: "string", default: "30" },
    "pglite-rows": { type: "string", default: "1000000" },
    repeats: { type: "string", default: "5" },
    keep: { type: "boolean" },
    reuse: { type: "boolean" },
    schema: { type: "string", default: "assay_bench_report" },
    database: { type: "string" },
  },
});
if (!/^[a-z_][a-z0-9_]*$/.test(flags.schema)) {
  throw new Error(`Expected --schema to be a lower-case SQL name, got ${flags.schema}`);
}
const SCHEMA = flags.schema;
if (flags.database !== undefined && !/^[a-z_][a-z0-9_]*$/.test(flags.database)) {
  throw new Error(`Expected --database to be a lower-case SQL name, got ${flags.database}`);
}
const RUNS = Number(flags.runs);
const REPEATS = Number(flags.repeats);
const PRICES = {
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

const verdicts: string[] = [];
if (Number(flags.rows) > 0) await benchPostgres(Number(flags.rows));
const pgliteRows = Number(flags["pglite-rows"]);
if (pgliteRows > 0) await benchPglite(pgliteRows);
console.log("\nTargets:");
for (const line of verdicts) console.log(`  ${line}`);

async function benchPostgres(rows: number): Promise<void> {
  const databaseUrl = await benchDatabaseUrl();
  const admin = new pg.Client({ connectionString: databaseUrl });
  await admin.connect();
  if (flags.reuse !== true) await admin.query(`DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE`);
  const store = await openStore({
    databaseUrl,
    schema: SCHEMA,
    migrate: true,
    // The raw-row pass sends a report's seven queries at once; each must get a connection.
    poolSize: 8,
  });
  const driver = driverOf(store);
  if (driver.kind !== "postgres") throw new Error("expected a Postgres store");
  try {
    console.log(`== Postgres: ${fmt(rows)} score rows over ${RUNS} runs`);
    if (flags.reuse !== true) await seedOnOneConnection(store, driver.pool, rows);
    await admin.query(
      `VACUUM ANALYZE ${SCHEMA}.scores, ${SCHEMA}.samples, ${SCHEMA}.usage, ${SCHEMA}.truncations, ${SCHEMA}.selections, ${SCHEMA}.runs`,
    );
    await compare(store, "Postgres");
  } finally {
    await store.close();
    if (flags.keep !== true) await admin.query(`DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE`);
    await admin.end();
    if (flags.database !== undefined && flags.keep !== true) {
      await onServer(`DROP DATABASE IF EXISTS ${flags.database}`);
    }
  }
}

/** $DATABASE_URL, or with --database that database on the same server, created if missing. */
async function benchDatabaseUrl(): Promise<string> {
  if (flags.database === undefined) return DATABASE_URL;
  const exists = await onServer("SELECT 1 FROM pg_database WHERE datname = $1", [flags.database]);
  if (exists.rowCount === 0) await onServer(`CREATE DATABASE ${flags.database}`);
  const url = new URL(DATABASE_URL);
  url.pathname = `/${flags.database}`;
  return url.toString();
}

/** One statement on $DATABASE_URL's own database (CREATE/DROP DATABASE cannot run inside the target). */
async function onServer(text: string, params: unknown[] = []): Promise<pg.QueryResult> {
  const client = new pg.Client({ connectionString: DATABASE_URL });
  await client.connect();
  try {
    return await client.query(text, params);
  } finally {
    await client.end();
  }
}

/** setseed holds for one connection only, so the whole series goes through one. */
async function seedOnOneConnection(store: Store, pool: pg.Pool, rows: number): Promise<void> {
  const client = await pool.connect();
  try {
    const oneConnection: SqlRunner = {
      async query(text, params = []) {
        const result = await client.query(text, params);
        return { rows: result.rows, rowCount: result.rowCount ?? 0 };
      },
    };
    await oneConnection.query("SET synchronous_commit = off");
    await seedSeries(store, oneConnection, rows);
  } finally {
    client.release();
  }
}

async function benchPglite(rows: number): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), "assay-bench-report-"));
  const store = await openStore({ dataDir: dir });
  try {
    console.log(`\n== PGlite: ${fmt(rows)} score rows over ${RUNS} runs`);
    await seedSeries(store, runnerOf(driverOf(store)), rows);
    await runnerOf(driverOf(store)).query("VACUUM ANALYZE");
    await compare(store, "PGlite");
  } finally {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  }
}

function runIdOf(i: number): string {
  return `night-${String(i).padStart(2, "0")}`;
}

/** The series: every run generated in SQL; the newest run's selection by selectForRun. */
async function seedSeries(store: Store, client: SqlRunner, rows: number): Promise<void> {
  const tasks = Math.max(1, Math.round(rows / RUNS / ROWS_PER_TASK));
  const seeded = await timed(async () => {
    for (let i = 1; i <= RUNS; i += 1) {
      const day = new Date(Date.UTC(2026, 0, i)).toISOString();
      await seedBenchRun(client, runIdOf(i), tasks, day);
      if (i < RUNS) await seedBenchSelections(client, runIdOf(i));
    }
  });
  console.log(
    `seeded ${fmt(tasks * ROWS_PER_TASK * RUNS)} score rows (${fmt(tasks)} tasks a run, with samples, usage, truncations) in ${fmt(seeded.ms / 1000, 1)} s`,
  );
  const selected = await timed(() =>
    selectForRun(store, runIdOf(RUNS), { verifierScorer: "judge", checkScorer: "exact" }),
  );
  console.log(
    `selectForRun over the newest run's ${fmt(tasks)} tasks: ${fmt(selected.ms / 1000, 1)} s`,
  );
}

interface Measured {
  ms: number;
  statements: { text: string; params: unknown[] }[];
}

/** The bundle and its parts from raw rows, then from rollups; one line each, with the ratio. */
async function compare(store: Store, label: string): Promise<void> {
  const runner = runnerOf(driverOf(store));
  const newest = runIdOf(RUNS);
  const ids = Array.from({ length: RUNS }, (_, i) => runIdOf(i + 1));
  const work: [string, (r: SqlRunner) => Promise<unknown>][] = [
    ["figures of the newest run", (r) => runFigures(r, [newest])],
    [`figures of the ${RUNS} runs of the trend`, (r) => runFigures(r, ids)],
    ["early stops of the newest run", (r) => earlyStops(r, newest)],
    ["last runs of the series", (r) => lastRuns(r, { name: "nightly", last: RUNS })],
    [
      `report bundle (report + trend over ${RUNS} runs + early stops)`,
      (r) => reportBundle(r, newest, { prices: PRICES, trendRuns: RUNS }),
    ],
  ];

  // Raw rows first, as for runs still running: no rollups yet (a --reuse run may have some).
  for (const id of ids) await dropRollups(runner, id);
  const raw: Measured[] = [];
  for (const [, w] of work) raw.push(await measure(runner, w));
  const rawFigures = await rawRunFigures(runner, [newest]);
  const rawStops = await earlyStops(runner, newest);

  const writes: number[] = [];
  for (const id of ids) writes.push((await timed(() => writeRollups(driverOf(store), id))).ms);
  const rolled: Measured[] = [];
  for (const [, w] of work) rolled.push(await measure(runner, w));
  const same =
    isDeepStrictEqual((await runFigures(runner, [newest])).get(newest), rawFigures.get(newest)) &&
    isDeepStrictEqual(await earlyStops(runner, newest), rawStops);

  console.log(
    `writing one run's rollups (at completion): median ${fmt(median(writes), 0)} ms over ${ids.length} runs`,
  );
  console.log(
    `rollup figures and early stops of the newest run equal its raw-row ones: ${same ? "yes" : "NO"}`,
  );
  console.log(`\n${label}, median of ${REPEATS}:     raw rows     rollups   raw/rollups`);
  work.forEach(([name], i) => {
    const r = raw[i] as Measured;
    const u = rolled[i] as Measured;
    console.log(
      `  ${name.padEnd(62)} ${fmt(r.ms, 1).padStart(9)} ms ${fmt(u.ms, 1).padStart(9)} ms ${(r.ms / u.ms).toFixed(0).padStart(8)}×`,
    );
  });

  const bundle = rolled.at(-1) as Measured;
  console.log(`\n${label}: each statement of the bundle from rollups, median of ${REPEATS}:`);
  let slowest = 0;
  for (const statement of bundle.statements) {
    const ms = await medianOf(() => runner.query(statement.text, statement.params));
    slowest = Math.max(slowest, ms);
    console.log(`  ${fmt(ms, 2).padStart(8)} ms  ${summary(statement.text)}`);
  }
  await analystViews(store, label, newest);
  const rawBundle = raw.at(-1) as Measured;
  verdicts.push(
    `${label}: slowest bundle statement ${fmt(slowest, 1)} ms (target ≤ ${STATEMENT_TARGET_MS}): ${slowest <= STATEMENT_TARGET_MS ? "MET" : "NOT MET"}`,
    `${label}: bundle ${fmt(bundle.ms, 1)} ms (target ≤ ${BUNDLE_TARGET_MS}; raw rows ${fmt(rawBundle.ms, 0)} ms): ${bundle.ms <= BUNDLE_TARGET_MS ? "MET" : "NOT MET"}`,
  );
}

/**
 * Each ready query of docs/analyst-views.md over the rolled-up runs, against the baseline of
 * one run's pass rate read from its raw score rows; and whether any plan reads `scores`.
 */
async function analystViews(store: Store, label: string, newest: string): Promise<void> {
  const runner = runnerOf(driverOf(store));
  await importPrices(driverOf(store), PRICES, { effectiveFrom: new Date(0), source: "bench" });
  const baseline = await medianOf(() => runner.query(RAW_PASS_RATE, [newest]));
  console.log(
    `\n${label}: analyst views, ready queries of docs/analyst-views.md, median of ${REPEATS}` +
      ` (baseline: one run's pass rate from raw scores, ${fmt(baseline, 1)} ms):`,
  );
  let slowest = 0;
  let readsScores = false;
  for (const query of readyQueries()) {
    const ms = await medianOf(() => runner.query(query));
    const scans = await planReadsScores(runner, query);
    readsScores ||= scans;
    slowest = Math.max(slowest, ms);
    const first = query.split("\n")[0]?.slice(0, 60) ?? "";
    console.log(
      `  ${fmt(ms, 2).padStart(8)} ms  ${(baseline / ms).toFixed(0).padStart(6)}× faster  plan reads scores: ${scans ? "YES" : "no"}  ${first}`,
    );
  }
  verdicts.push(
    `${label}: slowest analyst view query ${fmt(slowest, 1)} ms (target ≤ ${STATEMENT_TARGET_MS}), plans read scores: ${readsScores ? "YES" : "no"}: ${slowest <= STATEMENT_TARGET_MS && !readsScores ? "MET" : "NOT MET"}`,
  );
}

async function measure(runner: SqlRunner, work: (r: SqlRunner) => Promise<unknown>) {
  const statements: Measured["statements"] = [];
  const capturing: SqlRunner = {
    query(text, params = []) {
      if (!statements.some((s) => s.text === text)) statements.push({ text, params });
      return runner.query(text, params);
    },
  };
  await work(capturing); // warm-up, and records the statements
  return { ms: await medianOf(() => work(runner)), statements };
}

async function medianOf(work: () => Promise<unknown>): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < REPEATS; i += 1) times.push((await timed(work)).ms);
  return median(times);
}

/** The statement's first FROM table and its first line, to tell statements apart. */
function summary(text: string): string {
  const from = /FROM\s+(\w+)/i.exec(text)?.[1] ?? "?";
  const first = text.trim().split("\n")[0]?.slice(0, 70) ?? "";
  return `[${from}] ${first}`;
}
