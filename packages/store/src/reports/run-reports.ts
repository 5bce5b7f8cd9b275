import {
  type CostOptions,
  type CostReport,
  costOfUsage,
  NotFoundError,
  type PriceTable,
  perUnit,
  type RunIdentity,
  type RunReport,
  type RunTrendPoint,
  type UsageTotals,
} from "@assay/core";
import type { SqlRunner } from "../sql-runner.js";
import { scorerPassOf } from "./pass-rule.js";
import { readRollups } from "./rollups/read-rollups.js";
import { type RunFigures, runFigures } from "./run-figures.js";
import { lastRuns, type RunSelector, runsById } from "./run-list.js";
import { verifierEffortOf } from "./verifier-effort.js";

export interface ReportOptions {
  /** Prices usage; without it cost is left out of the report (null), not shown as 0. */
  prices?: PriceTable;
}

/**
 * Full reports for several runs; each query runs once for all of them. A finished run is
 * read from its rollups, a running one from its raw rows (run-figures.ts).
 */
export async function runReports(
  runner: SqlRunner,
  runIds: readonly string[],
  options: ReportOptions = {},
): Promise<RunReport[]> {
  const { runs, withoutModelCalls } = await runsById(runner, runIds);
  const missing = runIds.filter((id) => !runs.some((run) => run.runId === id));
  if (missing.length > 0) {
    throw new NotFoundError(
      `No run with id ${missing.map((id) => `\`${id}\``).join(", ")}: check \`assay status\` for run ids`,
    );
  }
  const figures = await runFigures(
    runner,
    runs.map((run) => run.runId),
  );
  return runIds.map((id) =>
    reportOf(runs.find((r) => r.runId === id) as RunIdentity, figures.get(id) as RunFigures, {
      ...options,
      idle: withoutModelCalls.has(id),
    }),
  );
}

/** One run's report from its figures (rolled up or raw). */
function reportOf(
  run: RunIdentity,
  f: RunFigures,
  options: ReportOptions & { idle: boolean },
): RunReport {
  const { samples, tasks } = f.counts;
  const selection = f.selection;
  return {
    run,
    samples,
    tasks,
    accuracy: {
      tasks,
      selectedTasks: selection.selectedTasks,
      unselected: selection.unselected,
      methods: selection.methods,
      pass1: selection.pass1,
      selected: selection.selected,
      oracle: selection.oracle,
    },
    ties: { continuous: selection.tie, discrete: selection.discreteTie },
    cost: costReport(f.usage, f.solved.solved, samples, options.prices, {
      idle: options.idle ? ["verifier"] : [],
    }),
    truncation: f.truncation,
    unscored: f.scores.unscored,
    histograms: f.scores.histograms,
    scorerMeans: f.scores.means,
    calibration: f.calibration,
    selfPreference: f.selfPreference,
    pairwise: f.pairwise,
    verifierEffort: verifierEffortOf(f.verifierEffort, f.solved.solved),
    scorerPasses: f.scores.passes.map(scorerPassOf),
    solved: { decidedBy: f.solved.decidedBy, tasks, solved: f.solved.solved },
  };
}

/**
 * Headline numbers of the newest runs (optionally one named series), oldest first, read
 * from rollups only: a few rows per run, however many rows each run wrote. A run without
 * rollups (running, or abandoned) is a point with its state and no figures, and costs no
 * read of its raw rows.
 */
export async function runTrend(
  runner: SqlRunner,
  selector: RunSelector,
  options: ReportOptions = {},
): Promise<RunTrendPoint[]> {
  const runs = await lastRuns(runner, selector);
  const ids = runs.map((run) => run.runId);
  const [rolledUp, { withoutModelCalls }] = await Promise.all([
    readRollups(runner, ids),
    runsById(runner, ids),
  ]);
  return runs.map((run) => {
    const f = rolledUp.get(run.runId);
    if (f === undefined) return pointWithoutFigures(run);
    return trendPointOf(reportOf(run, f, { ...options, idle: withoutModelCalls.has(run.runId) }));
  });
}

function pointWithoutFigures(run: RunIdentity): RunTrendPoint {
  return {
    run,
    state: run.abandonedAt == null ? "unfinished" : "abandoned",
    pass1: null,
    selected: null,
    oracle: null,
    tieRate: null,
    truncationRate: null,
    unscoredRate: null,
    costPerSolvedTask: null,
    scorerMeans: [],
  };
}

export function trendPointOf(report: RunReport): RunTrendPoint {
  return {
    run: report.run,
    state: "completed",
    pass1: report.accuracy.pass1.rate,
    selected: report.accuracy.selected.rate,
    oracle: report.accuracy.oracle.rate,
    tieRate: report.ties.continuous.rate,
    truncationRate: report.truncation.overall.rate,
    unscoredRate: report.unscored.unscored.rate,
    costPerSolvedTask: report.cost?.perSolvedTask.total ?? null,
    scorerMeans: report.scorerMeans,
  };
}

/**
 * Cost per solved task = (generation + verification) / solved tasks (the pick is correct,
 * or without selection the pass rule holds: docs/figures.md, "Pass and solved"). A run that
 * planned no model call has an idle verifier: its verification costs 0.
 */
function costReport(
  usage: readonly UsageTotals[],
  solvedTasks: number,
  samples: number,
  prices: PriceTable | undefined,
  options: CostOptions,
): CostReport | null {
  if (prices === undefined) return null;
  const cost = costOfUsage(usage, prices, options);
  return {
    ...cost,
    solvedTasks,
    samples,
    perSolvedTask: {
      generation: perUnit(cost.generation, solvedTasks),
      verification: perUnit(cost.verification, solvedTasks),
      total: perUnit(cost.total, solvedTasks),
    },
    perSample: perUnit(cost.total, samples),
  };
}
