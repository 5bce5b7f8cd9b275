import {
  type AnswerJoinCounts,
  type BootstrapOptions,
  costOfUsage,
  type PriceTable,
  type ReportBundle,
} from "@assay/core";
import { answerJoinCounts } from "../queries/answer-join-counts.js";
import type { SqlRunner } from "../sql-runner.js";
import { earlyStops } from "./early-stops.js";
import { runComparison } from "./run-comparison.js";
import { type ReportOptions, runReports, runTrend } from "./run-reports.js";
import { sliceReport } from "./slice-report.js";

export interface BundleOptions extends ReportOptions {
  /** A second run shown side by side. */
  compareRunId?: string;
  /** Runs in the trend. Default 10. */
  trendRuns?: number;
  /** Trend over runs with this name. Default: the reported run's name, else every run. */
  series?: string;
  /** M: a trajectory that fell this many steps in a row is an early-stop candidate. Default 3. */
  fallSteps?: number;
  /** Smallest drop (0–1 scale) that counts as a fall. Default 0.01. */
  minFall?: number;
  /** Early-stop candidates listed. Default 100. */
  earlyStopLimit?: number;
  /** Resampling of the paired differences against `compareRunId` (seeded). */
  bootstrap?: BootstrapOptions;
  /** Slice the headline figures by this metadata field (`metadata.<key>`). */
  by?: string;
}

/** What `assay report` shows: the run, an optional comparison, the trend it sits in, early stops. */
export async function reportBundle(
  runner: SqlRunner,
  runId: string,
  options: BundleOptions = {},
): Promise<ReportBundle> {
  const ids = options.compareRunId === undefined ? [runId] : [runId, options.compareRunId];
  const [report, compare] = await runReports(runner, ids, options);
  if (report === undefined) throw new Error(`runReports returned no report for ${runId}`);
  const series = options.series ?? report.run.name ?? undefined;
  const trend = await runTrend(
    runner,
    { last: options.trendRuns ?? 10, ...(series !== undefined && { name: series }) },
    options,
  );
  const stops = await earlyStops(runner, runId, {
    ...(options.fallSteps !== undefined && { fallSteps: options.fallSteps }),
    ...(options.minFall !== undefined && { minFall: options.minFall }),
    ...(options.earlyStopLimit !== undefined && { limit: options.earlyStopLimit }),
  });
  const comparison =
    options.compareRunId === undefined
      ? undefined
      : await runComparison(runner, runId, options.compareRunId, options.bootstrap);
  const slices =
    options.by === undefined
      ? undefined
      : await sliceReport(runner, runId, options.by, {
          ...(options.prices !== undefined && { prices: options.prices }),
        });
  const answers = priced(await answerJoinCounts(runner, runId), options.prices);
  return {
    report,
    compare: compare ?? null,
    trend,
    earlyStops: stops,
    ...(comparison !== undefined && { comparison }),
    ...(slices !== undefined && { slices }),
    ...(answers !== undefined && { answers }),
  };
}

/**
 * The join's counts with what its billed-but-not-joined tokens cost at these prices, as
 * generation usage: null when a model has no price, never 0.
 */
function priced(
  answers: AnswerJoinCounts | undefined,
  prices: PriceTable | undefined,
): AnswerJoinCounts | undefined {
  if (answers === undefined || prices === undefined || answers.unjoined.length === 0) {
    return answers;
  }
  const totals = answers.unjoined.map((usage) => ({
    role: "generator" as const,
    model: usage.model,
    inputTokens: usage.inputTokens,
    cachedInputTokens: usage.cachedInputTokens,
    cacheWriteTokens: usage.cacheWriteTokens,
    // Joins stored before the 1-hour part was counted price every write at the 5-minute rate.
    cacheWrite1hTokens: usage.cacheWrite1hTokens ?? 0,
    outputTokens: usage.outputTokens,
    computeMs: null,
    rows: usage.lines,
  }));
  const cost = costOfUsage(totals, prices, { idle: ["verifier"] });
  return { ...answers, unjoinedCost: { amount: cost.generation, currency: cost.currency } };
}
