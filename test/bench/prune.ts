/**
 * Prune benchmark (`npm run bench:prune`): on server Postgres, removing one run's raw rows
 * (--run-rows score rows, with its samples) from stores of --totals score rows in all, two
 * ways on the same data shape in the same process: dropping the run's partitions, as
 * `assay prune` does, and the same-run baseline of an unpartitioned copy of the tables
 * (same columns and indexes) where the run goes by `DELETE ... WHERE run_id = $1`.
 * Each repeat adds a fresh run, then removes it both ways; medians of --repeats.
 * Target: the drop ≤ 1 s and flat as the total grows. Also printed: the summary `assay
 * prune` keeps of each run before the drop (`Store.runSummary`, one scan of the run's
 * scores), which grows with the run, not with the store.
 *
 *   --totals N,N,...  total score rows to measure at (default 1000000,10000000,30000000)
 *   --run-rows N      score rows of the run removed (default 1,000,000; two per sample)
 *   --repeats N       removals measured at each total (default 3)
 *   --schema NAME     Postgres schema of the data (default assay_bench_prune), dropped at
 *                     the end, as at the start
 */

import { parseArgs } from "node:util";
import { openStore, type Store } from "@assay/store";
import { driverOf, dropRunPartitions } from "@assay/store/driver";
import { runnerOf } from "@assay/store/reports";
import { DATABASE_URL } from "@assay/test-support/database-url";
import pg from "pg";
import { fmt, median, timed } from "./bench-util.js";

const DROP_TARGET_MS = 1000;

const { values: flags } = parseArgs({
  options: {
    totals: { type: "string", default: "1000000,10000000,30000000" },
    "run-rows": { type: "string", default: "1000000" },
    repeats: { type: "string", default: "3" },
    schema: { type: "string", default: "assay_bench_prune" },
  },
});

const totals = (flags.totals ?? "").split(",").map(wholeNumber);
const runRows = wholeNumber(flags["run-rows"] ?? "");
const repeats = wholeNumber(flags.repeats ?? "");
const schema = flags.schema ?? "assay_bench_prune";
if (!/^[a-z_][a-z0-9_]*$/.test(schema)) throw new Error(`--schema ${schema}: use [a-z0-9_]`);

function wholeNumber(text: string): number {
  const n = Number(text.replaceAll("_", ""));
  if (!Number.isInteger(n) || n < 1) throw new Error(`Expected a whole number, got "${text}"`);
  return n;
}

const pool = new pg.Pool({
  connectionString: DATABASE_URL,
  options: `-c search_path=${schema}`,
  max: 2,
});

/** Score rows in the store now (both copies hold the same). */
let stored = 0;
let runCounter = 0;

/** A run of `rows` score rows (two scorers per sample) in the partitioned and the flat tables. */
async function addRun(rows: number): Promise<string> {
  runCounter += 1;
  const runId = `bench-night-${String(runCounter).padStart(4, "0")}`;
  const samples = Math.max(1, Math.floor(rows / 2));
  await pool.query(
    `INSERT INTO runs (id, name, spec, transport) VALUES ($1, 'bench', '{}', 'local')`,
    [runId],
  );
  await pool.query("SELECT assay_create_run_partitions($1)", [runId]);
  for (const suffix of ["", "_flat"]) {
    await pool.query(
      `INSERT INTO samples${suffix} (run_id, sample_id, task_id, candidate_index, label, line, metadata)
       SELECT $1, 't' || (i / 5) || '#' || (i % 5), 't' || (i / 5), i % 5, i % 3 = 0, i + 1, '{}'
       FROM generate_series(0, $2::int - 1) i`,
      [runId, samples],
    );
    await pool.query(
      `INSERT INTO scores${suffix} (run_id, sample_id, scorer, rule, status, value, detail)
       SELECT $1, 't' || (i / 5) || '#' || (i % 5), s, 'default', 'scored', (i % 11) / 10.0,
              CASE WHEN s = 'judge' AND i % 4 = 0
                   THEN '{"progress":[0.9,0.8,0.7]}'::jsonb END
       FROM generate_series(0, $2::int - 1) i, unnest(ARRAY['exact', 'judge']) s`,
      [runId, samples],
    );
  }
  stored += samples * 2;
  return runId;
}

/** What `assay prune` does to a run's raw rows once it is marked pruned: the same code. */
async function dropPartitions(store: Store, runId: string): Promise<void> {
  await dropRunPartitions(runnerOf(driverOf(store)), runId, { concurrently: true });
}

/** Today's way: delete the run's rows from unpartitioned tables, one transaction. */
async function deleteRows(runId: string): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query("BEGIN");
    await client.query("DELETE FROM scores_flat WHERE run_id = $1", [runId]);
    await client.query("DELETE FROM samples_flat WHERE run_id = $1", [runId]);
    await client.query("COMMIT");
  } finally {
    client.release();
  }
}

async function setUp(): Promise<Store> {
  await pool.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  const store = await openStore({ databaseUrl: DATABASE_URL, schema, migrate: true });
  // The baseline: the same columns, keys and indexes, in one table each.
  for (const table of ["samples", "scores"]) {
    await pool.query(`CREATE TABLE ${table}_flat (LIKE ${table} INCLUDING ALL)`);
  }
  return store;
}

async function main(): Promise<void> {
  console.log(
    `bench:prune: remove one run of ${fmt(runRows)} score rows (+${fmt(runRows / 2)} samples) ` +
      `at ${totals.map((t) => fmt(t)).join(", ")} total score rows; medians of ${repeats}`,
  );
  const store = await setUp();
  const drops: number[] = [];
  try {
    for (const total of totals) {
      // Fill up to the total with runs of the same size, then measure on a run added on top.
      while (stored + runRows <= total) await addRun(runRows);
      if (stored < total) await addRun(total - stored);
      await pool.query("ANALYZE samples, scores, samples_flat, scores_flat");
      const dropMs: number[] = [];
      const deleteMs: number[] = [];
      const summaryMs: number[] = [];
      for (let i = 0; i < repeats; i += 1) {
        const runId = await addRun(runRows);
        summaryMs.push((await timed(() => store.runSummary(runId))).ms);
        deleteMs.push((await timed(() => deleteRows(runId))).ms);
        dropMs.push((await timed(() => dropPartitions(store, runId))).ms);
        await pool.query("DELETE FROM runs WHERE id = $1", [runId]);
        stored -= runRows;
      }
      const [drop, del] = [median(dropMs), median(deleteMs)];
      drops.push(drop);
      console.log(
        `total ${fmt(total).padStart(11)} score rows: drop partitions ${fmt(drop, 1)} ms, ` +
          `DELETE (unpartitioned, same run) ${fmt(del, 1)} ms, ratio ${fmt(del / drop, 1)}x ` +
          `${drop <= DROP_TARGET_MS ? "(drop within" : "(drop OVER"} the ${DROP_TARGET_MS} ms target); ` +
          `summary kept before the drop ${fmt(median(summaryMs), 1)} ms`,
      );
    }
    const spread = Math.max(...drops) / Math.min(...drops);
    console.log(
      `drop at largest / smallest total: ${fmt(spread, 2)}x (constant in size means near 1)`,
    );
  } finally {
    await store.close();
    await pool.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await pool.end();
  }
}

await main();
