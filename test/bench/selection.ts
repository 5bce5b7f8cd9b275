/**
 * Selection benchmark (`npm run bench:selection`): a run of 250,000 tasks × 4 candidates
 * (1,000,000 candidates, 2,000,000 score rows), on Postgres and on PGlite. Baseline in the
 * same run: the per-task reads selection used to make (a page of tasks, then two aggregate
 * lookups per candidate), timed on a sample of tasks and extrapolated. Then the set-based
 * pass (one ordered read, selection in JS, COPY) over every task, and the same pass over
 * the same rows with task ids that fall along sample id order (the pass finds that at once
 * and reads in task order, by primary-key lookups, as it did before it could read in sample
 * id order). Each pass runs in its own
 * process, so its peak RSS is its own; the set-based pass also runs on a run a tenth the
 * size, to show its memory does not grow with the tasks. Target: ≥ 50,000 tasks/s.
 *
 * Flags: --tasks (250000), --candidates (4), --sample (baseline tasks, 20000), --reps (3),
 * --driver (postgres | pglite | both; default both), --schema (the Postgres schema it seeds and
 * drops; assay_bench_selection), --unleveled (seed the verifier rows without their stored
 * discrete level, as runs scored before migration 0004 are: the read falls back to their
 * distributions).
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { openStore, type Store } from "@assay/store";
import { driverOf } from "@assay/store/driver";
import type { SqlRunner } from "@assay/store/reports";
import { runnerOf } from "@assay/store/reports";
import { DATABASE_URL } from "@assay/test-support/database-url";
import pg from "pg";
import { fmt, measureProcess, median, timed } from "./bench-util.js";
import { seedSelectionRun } from "./selection-data.js";

const TARGET = 50_000;

// A run's stored selections, each task's row as text (the columns a report reads), keyed
// by its task's number: "bench" names task n `t<n>`, "bench-descending" `u<tasks − 1 − n>`.
const SELECTIONS_BY_TASK = `
  SELECT CASE WHEN task_id LIKE 't%' THEN substr(task_id, 2)::int
              ELSE $2::int - 1 - substr(task_id, 2)::int END AS n,
         row(method, candidates, selected_index, selected_sample_id, tie, discrete_tie,
             tie_break, selected_correct, first_correct, any_correct, detail)::text AS picked
  FROM selections WHERE run_id = $1`;

const { values: flags } = parseArgs({
  options: {
    tasks: { type: "string", default: "250000" },
    candidates: { type: "string", default: "4" },
    sample: { type: "string", default: "20000" },
    reps: { type: "string", default: "3" },
    driver: { type: "string", default: "both" },
    schema: { type: "string", default: "assay_bench_selection" },
    unleveled: { type: "boolean", default: false },
  },
});
const SCHEMA = flags.schema;
const tasks = Number(flags.tasks);
const candidates = Number(flags.candidates);
const sample = Math.min(Number(flags.sample), tasks);
const reps = Number(flags.reps);
const small = Math.max(1, Math.round(tasks / 10));

console.log(
  `selection: ${fmt(tasks)} tasks × ${candidates} candidates = ${fmt(tasks * candidates)} candidates; ` +
    `baseline on ${fmt(sample)} tasks; median of ${reps}` +
    `${flags.unleveled ? "; verifier rows without their stored level (as before migration 0004)" : ""}. The machine is shared: read the ratios.`,
);
if (flags.driver !== "pglite") await benchPostgres();
if (flags.driver !== "postgres") await benchPglite();

async function benchPostgres(): Promise<void> {
  const admin = new pg.Client({ connectionString: DATABASE_URL });
  await admin.connect();
  await admin.query(`DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE`);
  try {
    const store = await openStore({ databaseUrl: DATABASE_URL, schema: SCHEMA, migrate: true });
    await seed("postgres", store);
    await store.close();
    await admin.query(`VACUUM ANALYZE ${SCHEMA}.samples, ${SCHEMA}.scores`);
    await compare([DATABASE_URL, SCHEMA], () =>
      openStore({ databaseUrl: DATABASE_URL, schema: SCHEMA }),
    );
  } finally {
    await admin.query(`DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE`);
    await admin.end();
  }
}

async function benchPglite(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), "assay-bench-selection-"));
  try {
    const store = await openStore({ dataDir: dir });
    await seed("pglite", store);
    await runnerOf(driverOf(store)).query("VACUUM ANALYZE samples, scores");
    await store.close();
    await compare([dir], () => openStore({ dataDir: dir, create: false }));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function seed(driver: string, store: Store): Promise<void> {
  const runner = runnerOf(driverOf(store));
  const { ms } = await timed(async () => {
    const leveled = !flags.unleveled;
    await seedSelectionRun(runner, "bench", tasks, candidates, leveled);
    await seedSelectionRun(runner, "bench-descending", tasks, candidates, leveled, true);
    await seedSelectionRun(runner, "bench-tenth", small, candidates, leveled);
  });
  const seeded = 2 * tasks + small;
  console.log(
    `\n${driver}: seeded ${fmt(seeded * candidates)} candidates and ` +
      `${fmt(seeded * candidates * 2)} score rows in ${fmt(ms / 1000, 1)} s`,
  );
}

interface Pass {
  rate: number;
  ms: number;
  peakRssMb: number;
  /** CPU time per task, µs: the client process's, and the Postgres backend's (null: unknown). */
  clientUs: number;
  serverUs: number | null;
}

async function compare(where: string[], reopen: () => Promise<Store>): Promise<void> {
  const old: Pass[] = [];
  const current: Pass[] = [];
  const inTaskOrder: Pass[] = [];
  for (let rep = 0; rep < reps; rep += 1) {
    old.push(await pass(where, "old", "bench", sample));
    current.push(await pass(where, "new", "bench", tasks));
    inTaskOrder.push(await pass(where, "new", "bench-descending", tasks));
  }
  const tenth = await pass(where, "new", "bench-tenth", small);
  const alike = await chosenAlike(where, reopen);
  const oldRate = median(old.map((p) => p.rate));
  const newRate = median(current.map((p) => p.rate));
  const verdict = newRate >= TARGET ? "meets" : "MISSES";
  console.log(
    `  per-task (old), ${fmt(sample)}-task sample: ${fmt(oldRate)} tasks/s ` +
      `→ ${fmt(tasks)} tasks in ≈ ${fmt(tasks / oldRate, 1)} s; peak RSS ${fmt(median(old.map((p) => p.peakRssMb)))} MB`,
  );
  console.log(
    `  set-based (new), all ${fmt(tasks)} tasks: ${fmt(newRate)} tasks/s, ` +
      `${fmt(median(current.map((p) => p.ms)) / 1000, 1)} s; peak RSS ${fmt(median(current.map((p) => p.peakRssMb)))} MB ` +
      `(${fmt(small)} tasks: ${fmt(tenth.peakRssMb)} MB, ${fmt(tenth.rate)} tasks/s)`,
  );
  const taskOrderRate = median(inTaskOrder.map((p) => p.rate));
  console.log(
    `  set-based, task ids falling along sample ids (read again in task order, as before): ${fmt(taskOrderRate)} tasks/s, ` +
      `${fmt(median(inTaskOrder.map((p) => p.ms)) / 1000, 1)} s; peak RSS ${fmt(median(inTaskOrder.map((p) => p.peakRssMb)))} MB`,
  );
  console.log(
    `  CPU per task (load-independent): old ${cpuOf(old)}; new ${cpuOf(current)}; in task order ${cpuOf(inTaskOrder)}`,
  );
  console.log(
    `  same picks: the two set-based reads differ on ${fmt(alike.reads.differ)} of ${fmt(alike.reads.compared)} tasks; ` +
      `the set-based and the per-task reads differ on ${fmt(alike.perTask.differ)} of ${fmt(alike.perTask.compared)} tasks`,
  );
  console.log(
    `  ratio new/old: ${(newRate / oldRate).toFixed(1)}×; in sample id order ÷ in task order: ${(newRate / taskOrderRate).toFixed(2)}×; ${verdict} the ${fmt(TARGET)} tasks/s target`,
  );
}

/** Tasks whose stored selections differ, of the tasks either side holds. */
interface Agreement {
  differ: number;
  compared: number;
}

/**
 * Whether the reads chose alike: the sample-order read ("bench") against the task-order
 * read of the same rows ("bench-descending"), every task; then the set-based read against
 * the per-task reads, on the tasks the per-task pass covers (it upserts its tasks over the
 * set-based pass's rows, which are kept aside first).
 */
async function chosenAlike(
  where: string[],
  reopen: () => Promise<Store>,
): Promise<{ reads: Agreement; perTask: Agreement }> {
  // The store is open here only between passes: a pass's process opens it on its own.
  const withRunner = async <T>(use: (runner: SqlRunner) => Promise<T>): Promise<T> => {
    const store = await reopen();
    try {
      return await use(runnerOf(driverOf(store)));
    } finally {
      await store.close();
    }
  };
  // Counted from the rows, so an empty side cannot pass for agreement.
  const differing = async (runner: SqlRunner, left: string, right: string, params: unknown[]) => {
    const { rows } = await runner.query<Agreement>(
      `SELECT count(*) FILTER (WHERE a.picked IS DISTINCT FROM b.picked)::int AS differ,
              count(*)::int AS compared
       FROM (${left}) a FULL JOIN (${right}) b USING (n)`,
      params,
    );
    return rows[0] ?? { differ: 0, compared: 0 };
  };
  const reads = await withRunner(async (runner) => {
    const agreement = await differing(
      runner,
      SELECTIONS_BY_TASK,
      SELECTIONS_BY_TASK.replace("$1", "$3"),
      ["bench", tasks, "bench-descending"],
    );
    await runner.query("DROP TABLE IF EXISTS set_based_selections");
    await runner.query(
      "CREATE TABLE set_based_selections AS SELECT * FROM selections WHERE run_id = 'bench'",
    );
    return agreement;
  });
  await pass(where, "old", "bench", sample);
  const kept = SELECTIONS_BY_TASK.replace("FROM selections", "FROM set_based_selections");
  // Only the tasks the per-task pass stored: their rows are the newest.
  const perTaskRows = `${SELECTIONS_BY_TASK} AND created_at > (SELECT max(created_at) FROM set_based_selections)`;
  const perTask = await withRunner((runner) =>
    differing(
      runner,
      `SELECT * FROM (${kept}) k WHERE n IN (SELECT n FROM (${perTaskRows}) p)`,
      perTaskRows,
      ["bench", tasks],
    ),
  );
  return { reads, perTask };
}

/** "client 62 µs + server 54 µs = 116 µs (8,600 tasks per CPU-second)", medians. */
function cpuOf(passes: readonly Pass[]): string {
  const client = median(passes.map((p) => p.clientUs));
  const servers = passes.map((p) => p.serverUs).filter((us): us is number => us !== null);
  const server = servers.length === passes.length ? median(servers) : null;
  const total = client + (server ?? 0);
  const parts =
    server === null
      ? `client ${fmt(client)} µs`
      : `client ${fmt(client)} µs + server ${fmt(server)} µs`;
  return `${parts} = ${fmt(total)} µs (${fmt(1e6 / total)} tasks per CPU-second)`;
}

async function pass(where: string[], mode: string, runId: string, limit: number): Promise<Pass> {
  const child = await measureProcess(process.execPath, [
    "--conditions=@assay/source",
    "--import",
    "tsx",
    "test/bench/selection-child.ts",
    mode,
    runId,
    String(limit),
    ...where,
  ]);
  if (child.exitCode !== 0) throw new Error(`${mode} pass failed:\n${child.stderr}`);
  const measured = JSON.parse(child.stdout.trim().split("\n").at(-1) ?? "{}") as {
    tasks: number;
    ms: number;
    cpuMs: number;
    serverCpuMs: number | null;
  };
  const perTask = (ms: number) => (ms * 1000) / measured.tasks;
  return {
    rate: (measured.tasks * 1000) / measured.ms,
    ms: measured.ms,
    peakRssMb: child.peakRssMb,
    clientUs: perTask(measured.cpuMs),
    serverUs: measured.serverCpuMs === null ? null : perTask(measured.serverCpuMs),
  };
}
