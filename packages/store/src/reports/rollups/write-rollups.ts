import { inTransaction } from "../../in-transaction.js";
import { refreshPlannerStatistics } from "../../planner-statistics.js";
import type { SqlRunner } from "../../sql-runner.js";
import type { StoreDriver } from "../../store-driver.js";
import { rawEarlyStops } from "../early-stops.js";
import { DEFAULT_FALL_STEPS, DEFAULT_MIN_FALL } from "../report-options.js";
import { type RunFigures, rawRunFigures } from "../run-figures.js";
import { truncationBuckets } from "../truncation-stats.js";
import { insertEarlyStopRollup, ROLLED_UP_EARLY_STOPS } from "./early-stop-rollups.js";
import { ROLLUP_TABLES } from "./rollup-tables.js";

const INSERT_RUN = `
  INSERT INTO run_rollups (run_id, samples, tasks, results, selected_tasks, unselected, methods,
                           counted, pass1, selected, oracle, ties, discrete_ties, discrete_of,
                           truncation_calls, truncation_cut, truncation_refused, solved)
  VALUES ($1, $2, $3, $4, $5, $6, $7::text[], $8, $9, $10, $11, $12, $13, $14,
          $15::bigint[], $16::bigint[], $17::bigint[], $18)`;
// Many rows in one statement, each table's rows as one JSON array parameter.
const INSERT_UNSCORED = `
  INSERT INTO unscored_rollups (run_id, reason, count)
  SELECT $1, x.reason, x.count FROM jsonb_to_recordset($2::jsonb) AS x(reason text, count bigint)`;
const INSERT_HISTOGRAMS = `
  INSERT INTO histogram_rollups (run_id, scorer, scored, counts)
  SELECT $1, x.scorer, x.scored, x.counts
  FROM jsonb_to_recordset($2::jsonb) AS x(scorer text, scored bigint, counts bigint[])`;
const INSERT_PASSES = `
  INSERT INTO pass_rollups (run_id, scorer, scored, unscored, passed, threshold)
  SELECT $1, x.scorer, x.scored, x.unscored, x.passed, x.threshold
  FROM jsonb_to_recordset($2::jsonb)
       AS x(scorer text, scored bigint, unscored bigint, passed bigint, threshold float8)`;
const INSERT_USAGE = `
  INSERT INTO usage_rollups (run_id, role, model, input_tokens, cached_input_tokens,
                             cache_write_tokens, output_tokens, compute_ms, rows)
  SELECT $1, x.role, x.model, x."inputTokens", x."cachedInputTokens", x."cacheWriteTokens",
         x."outputTokens", x."computeMs", x.rows
  FROM jsonb_to_recordset($2::jsonb) AS x(role text, model text, "inputTokens" bigint,
       "cachedInputTokens" bigint, "cacheWriteTokens" bigint, "outputTokens" bigint,
       "computeMs" float8, rows bigint)`;
const INSERT_SUMMARIES = `
  INSERT INTO summary_rollups (run_id, kind, position, summary)
  SELECT $1, $2, x.ord - 1, x.summary
  FROM jsonb_array_elements($3::jsonb) WITH ORDINALITY AS x(summary, ord)`;

/**
 * Computes the run's report figures from its raw rows and stores them as its rollups,
 * replacing any it had, in one transaction. Called when a run completes (and again when a
 * resumed or retried run completes, which reruns selection), so reports of the run read a
 * few rows instead of scanning its scores. The planner's statistics of the selections and
 * rollups are refreshed after, so reports that read them plan for their real size.
 */
export async function writeRollups(driver: StoreDriver, runId: string): Promise<void> {
  await inTransaction(driver, async (runner) => {
    // Two writers of one run (`assay status` and a waiting producer) take turns; without
    // this the second would trip over the first's rows.
    await runner.query("SELECT pg_advisory_xact_lock(hashtext('assay.rollups'), hashtext($1))", [
      runId,
    ]);
    await dropRollups(runner, runId);
    const figures = (await rawRunFigures(runner, [runId])).get(runId);
    if (figures === undefined) return;
    await insertRollups(runner, runId, figures);
    // The setting reports use unless told otherwise; others read raw rows.
    const stops = await rawEarlyStops(runner, runId, {
      fallSteps: DEFAULT_FALL_STEPS,
      minFall: DEFAULT_MIN_FALL,
      limit: ROLLED_UP_EARLY_STOPS,
    });
    await insertEarlyStopRollup(runner, runId, stops);
  });
  await refreshPlannerStatistics(driver, "derived");
}

/**
 * Forgets the run's rollups, so its reports read raw rows until they are written again:
 * for anything that changes the rows a rollup was computed from.
 */
export async function dropRollups(runner: SqlRunner, runId: string): Promise<void> {
  // run_rollups first: a report that no longer finds the run there reads raw rows.
  for (const table of ROLLUP_TABLES) {
    await runner.query(`DELETE FROM ${table} WHERE run_id = $1`, [runId]);
  }
}

async function insertRollups(runner: SqlRunner, runId: string, f: RunFigures): Promise<void> {
  const buckets = truncationBuckets(f.truncation);
  const s = f.selection;
  await runner.query(INSERT_RUN, [
    runId,
    f.counts.samples,
    f.counts.tasks,
    f.scores.unscored.results,
    s.selectedTasks,
    s.unselected,
    s.methods,
    s.pass1.of,
    s.pass1.count,
    s.selected.count,
    s.oracle.count,
    s.tie.count,
    s.discreteTie.count,
    s.discreteTie.of,
    buckets.calls,
    buckets.cut,
    buckets.refused,
    f.solved.solved,
  ]);
  await runner.query(INSERT_UNSCORED, [runId, JSON.stringify(f.scores.unscored.byReason)]);
  await runner.query(INSERT_HISTOGRAMS, [runId, JSON.stringify(f.scores.histograms)]);
  await runner.query(INSERT_PASSES, [runId, JSON.stringify(f.scores.passes)]);
  await runner.query(INSERT_USAGE, [runId, JSON.stringify(f.usage)]);
  await runner.query(INSERT_SUMMARIES, [runId, "calibration", JSON.stringify(f.calibration)]);
  await runner.query(INSERT_SUMMARIES, [
    runId,
    "self_preference",
    JSON.stringify(f.selfPreference),
  ]);
  await runner.query(INSERT_SUMMARIES, [
    runId,
    "pairwise",
    JSON.stringify(f.pairwise === null ? [] : [f.pairwise]),
  ]);
  await runner.query(INSERT_SUMMARIES, [runId, "scorer_moments", JSON.stringify(f.scores.moments)]);
  await runner.query(INSERT_SUMMARIES, [
    runId,
    "verifier_effort",
    JSON.stringify(f.verifierEffort),
  ]);
}
