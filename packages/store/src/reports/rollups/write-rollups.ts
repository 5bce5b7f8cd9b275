import type { EarlyStopReport } from "@assay/core";
import { bulkInsert, bulkPart } from "../../bulk/bulk-statement.js";
import type { RowOf } from "../../bulk/column-list.js";
import { insertRows } from "../../bulk/insert-rows.js";
import { inTransaction } from "../../in-transaction.js";
import { refreshPlannerStatistics } from "../../planner-statistics.js";
import type { SqlRunner } from "../../sql-runner.js";
import type { StoreDriver } from "../../store-driver.js";
import { rawEarlyStops } from "../early-stops.js";
import { DEFAULT_FALL_STEPS, DEFAULT_MIN_FALL } from "../report-options.js";
import { type RunFigures, rawRunFigures } from "../run-figures.js";
import { runnerOf } from "../runner-of.js";
import { truncationBuckets } from "../truncation-stats.js";
import { type StoredComparisons, writeComparisonRollups } from "./comparison-rollups.js";
import { earlyStopRollupParts, ROLLED_UP_EARLY_STOPS } from "./early-stop-rollups.js";
import {
  HISTOGRAM_ROLLUP_COLUMNS,
  PASS_ROLLUP_COLUMNS,
  ROLLUP_TABLES,
  RUN_ROLLUP_COLUMNS,
  SUMMARY_ROLLUP_COLUMNS,
  UNSCORED_ROLLUP_COLUMNS,
  USAGE_ROLLUP_COLUMNS,
} from "./rollup-tables.js";
import { numberRunTasks, writeTaskAndSliceRollups } from "./task-and-slice-rollups.js";

/**
 * Computes the run's report figures from its raw rows and stores them as its rollups,
 * replacing any it had, in one transaction. Called when a run completes (and again when a
 * resumed or retried run completes, which reruns selection), so reports of the run read a
 * few rows instead of scanning its scores. The planner's statistics of the selections and
 * rollups are refreshed after, so reports that read them plan for their real size.
 */
export async function writeRollups(driver: StoreDriver, runId: string): Promise<void> {
  await numberRunTasks(runnerOf(driver), runId);
  await inTransaction(driver, async (runner) => {
    // Two writers of one run (`assay status` and a waiting producer) take turns; without
    // this the second would trip over the first's rows.
    await runner.query("SELECT pg_advisory_xact_lock(hashtext('assay.rollups'), hashtext($1))", [
      runId,
    ]);
    await dropRollups(runner, runId);
    const figures = (await rawRunFigures(runner, [runId])).get(runId);
    if (figures === undefined) return;
    // The setting reports use unless told otherwise; others read raw rows.
    const stops = await rawEarlyStops(runner, runId, {
      fallSteps: DEFAULT_FALL_STEPS,
      minFall: DEFAULT_MIN_FALL,
      limit: ROLLED_UP_EARLY_STOPS,
    });
    // Comparisons and slices (`--compare`, `--by`) read these, computed in the database.
    const tasksRolledUp = await writeTaskAndSliceRollups(runner, runId);
    // The morning's `--compare` with the run before it and with the name's pinned baseline,
    // counted now (after the task rollups they read): a report of either pair reads a few rows.
    const compared = tasksRolledUp
      ? await writeComparisonRollups(runner, runId)
      : { comparedWith: null, comparedWithPinned: null };
    await insertRollups(runner, runId, figures, stops, { tasksRolledUp, ...compared });
  });
  await refreshPlannerStatistics(driver, "derived", runId);
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
  // Comparisons counted against the run at other runs' completion go with it: those runs'
  // comparisons with it pair their tasks again, from the rows as they are now.
  for (const column of ["compared_with", "compared_with_pinned"]) {
    await runner.query(`UPDATE run_rollups SET ${column} = NULL WHERE ${column} = $1`, [runId]);
  }
  await runner.query("DELETE FROM comparison_rollups WHERE baseline_run_id = $1", [runId]);
}

/**
 * Every rollup row of the figures in one statement, through the bulk path (array
 * parameters: the write runs inside the rollup's transaction).
 */
async function insertRollups(
  runner: SqlRunner,
  runId: string,
  f: RunFigures,
  stops: EarlyStopReport,
  derived: { tasksRolledUp: boolean } & StoredComparisons,
): Promise<void> {
  const parts = [
    bulkPart(RUN_ROLLUP_COLUMNS, [{ ...runRollupRow(runId, f), ...derived }]),
    bulkPart(UNSCORED_ROLLUP_COLUMNS, ofRun(runId, f.scores.unscored.byReason)),
    bulkPart(HISTOGRAM_ROLLUP_COLUMNS, ofRun(runId, f.scores.histograms)),
    bulkPart(PASS_ROLLUP_COLUMNS, ofRun(runId, f.scores.passes)),
    bulkPart(USAGE_ROLLUP_COLUMNS, ofRun(runId, f.usage)),
    bulkPart(SUMMARY_ROLLUP_COLUMNS, [
      ...summaryRows(runId, "calibration", f.calibration),
      ...summaryRows(runId, "self_preference", f.selfPreference),
      ...summaryRows(runId, "pairwise", f.pairwise === null ? [] : [f.pairwise]),
      ...summaryRows(runId, "scorer_moments", f.scores.moments),
      ...summaryRows(runId, "verifier_effort", f.verifierEffort),
    ]),
    ...earlyStopRollupParts(runId, stops),
  ];
  await bulkInsert(
    { runner, pool: undefined },
    parts,
    (from) => `
      WITH ${parts.map((part, index) => `rollup_${index} AS (${insertRows(part.list, from)})`).join(",\n")}
      SELECT 0 AS inserted`,
  );
}

function runRollupRow(
  runId: string,
  f: RunFigures,
): Omit<
  RowOf<(typeof RUN_ROLLUP_COLUMNS.keys)[number]>,
  "tasksRolledUp" | keyof StoredComparisons
> {
  const buckets = truncationBuckets(f.truncation);
  const s = f.selection;
  return {
    runId,
    samples: f.counts.samples,
    tasks: f.counts.tasks,
    results: f.scores.unscored.results,
    selectedTasks: s.selectedTasks,
    unselected: s.unselected,
    methods: s.methods,
    counted: s.pass1.of,
    pass1: s.pass1.count,
    selected: s.selected.count,
    oracle: s.oracle.count,
    ties: s.tie.count,
    discreteTies: s.discreteTie.count,
    discreteOf: s.discreteTie.of,
    truncationCalls: buckets.calls,
    truncationCut: buckets.cut,
    truncationRefused: buckets.refused,
    solved: f.solved.solved,
  };
}

/** The figures' rows, each with the run's id. */
function ofRun<T extends object>(runId: string, rows: readonly T[]): (T & { runId: string })[] {
  return rows.map((row) => ({ ...row, runId }));
}

/** A list of summaries as the rows of one kind, in list order. */
function summaryRows(runId: string, kind: string, summaries: readonly unknown[]) {
  return summaries.map((summary, position) => ({ runId, kind, position, summary }));
}
