// The morning after: reports over runs of R samples each (a graded and a continuous score
// per sample), built straight in Postgres (generate_series), autovacuum off on every
// table, each run completed as the pipeline completes one (planner statistics, then
// rollups, task and slice rollups included: the spec declares metadata.kind). Times `report`, `--compare`, `--by` and both (the store's
// reportBundle, as `assay report` calls it), median of --reps, and in the same run the
// comparison's pairing and the slices read from raw rows (as for a run without task and
// slice rollups, or an undeclared field) against the same read from the rollups (the
// comparison also from the counts its completion stored against the run before it).
//
//   npm run bench:morning -- --rows 100000,1000000 --runs 3 --reps 3
//
// The reports are of the last run, compared with the one before it (and, with 3 runs or
// more, with the first, pinned as the baseline), with a trend over every run built. With
// `--older N`, N older nights of `--older-rows` rows come first, completed and then pruned
// (a month of nights is `--runs 3 --older 27`).
//
//   npm run bench:morning -- --rows 1000000,10000000 --runs 3 --older 27 --reps 3
import { type CountedDifferences, pairedBootstrapOfCounts } from "@assay/core";
import { openStore } from "@assay/store";
import { driverOf } from "@assay/store/driver";
import {
  type PairingSource,
  pairedDifferences,
  rawSliceRows,
  reportBundle,
  runnerOf,
  sliceReport,
  sliceReportOf,
} from "@assay/store/reports";
import { DATABASE_URL, dropSchema, freshSchema } from "@assay/test-support/stores";
import pg from "pg";
import { fmt, median, timed } from "./bench-util.js";

function flag(name: string, fallback: string): string {
  const at = process.argv.indexOf(`--${name}`);
  return at === -1 ? fallback : (process.argv[at + 1] ?? fallback);
}
const SIZES = flag("rows", "100000,1000000").split(",").map(Number);
const RUNS = Number(flag("runs", "3"));
// Older nights of the same name, before those: completed, then pruned, as a nightly
// `assay prune --keep-last <runs>` leaves them (rollups only). They are built small: a
// pruned run keeps its run, slice and comparison rollups, whose size is not the run's.
const OLDER = Number(flag("older", "0"));
const OLDER_ROWS = Number(flag("older-rows", "10000"));
const REPS = Number(flag("reps", "3"));
const CANDIDATES = 4;

/**
 * Runs `ids` of `rows` samples each, one a day, the last `daysBefore` days before today
 * (the nightly runs end yesterday; the older ones end the day before the first of them).
 */
async function build(
  pool: pg.Pool,
  rows: number,
  ids: readonly string[],
  daysBefore = 0,
): Promise<readonly string[]> {
  for (const [i, id] of ids.entries()) {
    await pool.query(
      `INSERT INTO runs (id, name, spec, transport, created_at, planned_results, planned_model_results)
       VALUES ($1, 'nightly', '{"selection": {"verifier": "judge"}, "fields": {"metadata": ["kind"]}}', 'local', now() - make_interval(days => $2), $3, 0)`,
      [id, daysBefore + ids.length - i, rows],
    );
    await pool.query("SELECT assay_create_run_partitions($1)", [id]);
  }
  const { rows: tables } = await pool.query<{ name: string }>(
    `SELECT c.relname AS name FROM pg_class c
     WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind = 'r'`,
  );
  for (const { name } of tables) {
    await pool.query(`ALTER TABLE "${name}" SET (autovacuum_enabled = false)`);
  }
  for (const [r, id] of ids.entries()) {
    await pool.query(
      `INSERT INTO samples (run_id, sample_id, task_id, candidate_index, line, metadata)
       SELECT $1, 's' || i, 't' || (i / ${CANDIDATES}), i % ${CANDIDATES}, i / ${CANDIDATES},
              jsonb_build_object('kind', 'k' || (i / ${CANDIDATES}) % 8)
       FROM generate_series(0, $2 - 1) i`,
      [id, rows],
    );
    await pool.query(
      `INSERT INTO scores (run_id, sample_id, scorer, rule, status, value)
       SELECT $1, 's' || i, 'judge', 'default', 'scored', ((i * 7 + $3) % 11) / 10.0
       FROM generate_series(0, $2 - 1) i`,
      [id, rows, r],
    );
    // A continuous score too (a probe's probability): its per-task differences are nearly
    // all distinct, so the comparison sums them (MOMENTS_FROM) instead of counting them.
    // Hashed from the sample and the run, so that one run's values are not another's
    // shifted by a constant (which gave ~5 distinct per-task differences, not millions).
    await pool.query(
      `INSERT INTO scores (run_id, sample_id, scorer, rule, status, value)
       SELECT $1, 's' || i, 'probe', 'default', 'scored',
              (hashint8(i::bigint * 1000 + $3) & 1048575) / 1048576.0
       FROM generate_series(0, $2 - 1) i`,
      [id, rows, r],
    );
    await pool.query(
      `INSERT INTO selections (run_id, task_id, method, candidates, selected_index, tie,
                               selected_correct, first_correct, any_correct, detail)
       SELECT $1, 't' || t, 'best_of_n', ${CANDIDATES}, 0, false, (t + $2) % 3 = 0,
              (t + $2) % 2 = 0, (t + $2) % 5 <> 0, '{}'
       FROM generate_series(0, $3 / ${CANDIDATES} - 1) t`,
      [id, r, rows],
    );
  }
  return ids;
}

/** The comparison's pairing from one source, bootstrapped as the report does. */
async function compared(
  runner: ReturnType<typeof runnerOf>,
  runId: string,
  baseline: string,
  from: PairingSource,
): Promise<void> {
  const counted = await pairedDifferences(runner, runId, baseline, from);
  for (const c of counted) pairedBootstrapOfCounts(c.counted as CountedDifferences);
}

async function measure<T>(work: () => Promise<T>): Promise<number> {
  const ms: number[] = [];
  for (let i = 0; i < REPS; i += 1) ms.push((await timed(work)).ms);
  return median(ms);
}

const results: { rows: number; figure: string; ms: number }[] = [];
for (const rows of SIZES) {
  const schema = freshSchema();
  const store = await openStore({ databaseUrl: DATABASE_URL, schema, migrate: true });
  const pool = new pg.Pool({ connectionString: DATABASE_URL, options: `-c search_path=${schema}` });
  try {
    const older = await timed(async () => {
      const ids = await build(
        pool,
        OLDER_ROWS,
        Array.from({ length: OLDER }, (_, i) => `older-${i}`),
        RUNS,
      );
      for (const id of ids) {
        await store.refreshPlannerStatistics("written", id);
        await store.writeRollups(id);
      }
      if (ids.length > 0) await store.pruneRuns({ runIds: ids }, { dryRun: false });
    });
    if (OLDER > 0) {
      console.log(
        `${OLDER} older runs of ${OLDER_ROWS} rows: built, completed and pruned in ${fmt(older.ms / 1000, 1)} s`,
      );
    }
    const nights = Array.from({ length: RUNS }, (_, i) => `night-${i}`);
    const built = await timed(() => build(pool, rows, nights));
    // The first run is the release the others are compared with (`assay baseline`), pinned
    // once it is complete, so each later run completes with its comparison with it counted.
    const completed = await timed(async () => {
      for (const id of await built.value) {
        await store.refreshPlannerStatistics("written", id);
        await store.writeRollups(id);
        if (id === built.value[0] && RUNS >= 3) await store.pinBaseline(id);
      }
    });
    // The morning: the last run reported against the one before it, the trend over all.
    const [a, b] = built.value.slice(-2) as [string, string];
    const release = built.value[0] as string;
    const trendRuns = RUNS + OLDER;
    console.log(
      `${rows} rows x ${RUNS} runs: built in ${fmt(built.ms / 1000, 1)} s, completed (statistics + rollups) in ${fmt(completed.ms / 1000, 1)} s`,
    );
    const runner = runnerOf(driverOf(store));
    // The trend the reports below draw: every run built, each with its figures.
    const { trend } = await reportBundle(runner, b, { trendRuns });
    const completedInTrend = trend.filter((point) => point.state === "completed").length;
    console.log(`  trend: ${trend.length} runs, ${completedInTrend} with their figures`);
    const figures: [string, () => Promise<unknown>][] = [
      ["report", () => reportBundle(runner, b, { trendRuns })],
      ["report --compare", () => reportBundle(runner, b, { trendRuns, compareRunId: a })],
      ["report --by", () => reportBundle(runner, b, { trendRuns, by: "metadata.kind" })],
      [
        "report --compare --by",
        () => reportBundle(runner, b, { trendRuns, compareRunId: a, by: "metadata.kind" }),
      ],
      ...(RUNS >= 3
        ? [
            [
              "report --compare <pinned baseline>",
              () => reportBundle(runner, b, { trendRuns, compareRunId: release }),
            ] satisfies [string, () => Promise<unknown>],
          ]
        : []),
      // A pair nobody counted (the older run against the newer): paired from the two runs'
      // task rollup chunks.
      [
        "report --compare <uncounted pair>",
        () => reportBundle(runner, a, { trendRuns, compareRunId: b }),
      ],
      ["compare pairing, raw rows", () => compared(runner, b, a, "raw rows")],
      ["compare pairing, task rollups", () => compared(runner, b, a, "task rollups")],
      ["compare pairing, comparison rollups", () => compared(runner, b, a, "comparison rollups")],
      [
        "--by kind, raw rows",
        async () => sliceReportOf("metadata.kind", await rawSliceRows(runner, b, ["kind"])),
      ],
      ["--by kind, slice rollups", () => sliceReport(runner, b, "metadata.kind")],
      // The view against its table: the planner drops the view's join to runs, so counting
      // it costs what counting the table does (a scan of every unpruned run's samples).
      ["count(*) samples (the table)", () => pool.query("SELECT count(*) FROM samples")],
      ["count(*) analyst_samples", () => pool.query("SELECT count(*) FROM analyst_samples")],
      ["analyst_runs", () => pool.query("SELECT * FROM analyst_runs")],
    ];
    for (const [figure, work] of figures) {
      const ms = await measure(work);
      results.push({ rows, figure, ms });
      console.log(`  ${figure.padEnd(36)} median ${fmt(ms)} ms`);
    }
    const ms = (figure: string) => results.find((r) => r.rows === rows && r.figure === figure)?.ms;
    const ratio = (raw: string, rolled: string) => fmt((ms(raw) ?? 0) / (ms(rolled) ?? 1), 1);
    console.log(
      `  raw rows / rollups: compare pairing ${ratio("compare pairing, raw rows", "compare pairing, task rollups")}x (task rollups), ${ratio("compare pairing, raw rows", "compare pairing, comparison rollups")}x (comparison rollups), --by ${ratio("--by kind, raw rows", "--by kind, slice rollups")}x`,
    );
  } finally {
    await pool.end();
    await store.close();
    await dropSchema(schema);
  }
}
if (SIZES.length > 1) {
  const [small, large] = [SIZES[0] as number, SIZES.at(-1) as number];
  console.log(`growth from ${small} to ${large} rows per run (${large / small}x rows):`);
  for (const { figure } of results.filter((r) => r.rows === small)) {
    const at = (n: number) => results.find((r) => r.rows === n && r.figure === figure)?.ms ?? 0;
    console.log(`  ${figure.padEnd(36)} ${fmt(at(large) / at(small), 2)}x`);
  }
}
