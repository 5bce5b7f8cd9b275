import type { Rate, ReportBundle, RunReport } from "@assay/core";
import { formatBin, formatBucket, formatMoney, formatRate } from "../format.js";
import { formatScorerMean } from "../scorer-means.js";
import { barChart, chartMessage } from "./bar-chart.js";
import type { RunColor } from "./run-colors.js";

const percent = (value: number) => formatRate(value);

/** "100.0% (8/8)": a share never without the counts it stands on. */
const rateLabel = (rate: Rate) => `${formatRate(rate.rate)} (${rate.count}/${rate.of})`;

const hasSelection = (report: RunReport) => report.accuracy.methods.length > 0;

/**
 * pass@1 vs selected vs oracle, with the compared run beside it when there is one. Left
 * out when neither run has a selection: the page says so once (`absentLine`).
 */
export function accuracyChart(bundle: ReportBundle, color: RunColor): string {
  const runs = [bundle.report, ...(bundle.compare === null ? [] : [bundle.compare])];
  if (!runs.some(hasSelection)) return "";
  return barChart({
    id: "accuracy",
    title: "Accuracy: first candidate vs verifier pick vs oracle",
    note:
      "The gap between the pick and the oracle is what a better verifier could still win. " +
      "All three count the same tasks; one with no scored candidate is unsolved for the pick.",
    categories: ["pass@1", "selected", "oracle"],
    series: runs.map((r) => {
      const rates = [r.accuracy.pass1, r.accuracy.selected, r.accuracy.oracle];
      return {
        name: r.run.runId,
        color: color(r.run.runId),
        values: rates.map((rate) => rate.rate),
        labels: rates.map((rate) => (rate.rate === null ? "n/a" : rateLabel(rate))),
      };
    }),
    format: percent,
    max: 1,
  });
}

/**
 * Each scorer's mean (a pass rate for a pass/fail scorer) in every run of the trend, with
 * its 95% interval as a whisker: the headline figures of runs without selection.
 */
export function scorerMeansChart(bundle: ReportBundle, color: RunColor): string {
  const points = bundle.trend.some((p) => p.run.runId === bundle.report.run.runId)
    ? bundle.trend
    : [...bundle.trend, { run: bundle.report.run, scorerMeans: bundle.report.scorerMeans }];
  const scorers = [...new Set(points.flatMap((p) => p.scorerMeans.map((m) => m.scorer)))].sort();
  if (scorers.length === 0) return "";
  return barChart({
    id: "scorer-means",
    title: points.length > 1 ? "Mean per scorer across runs" : "Mean per scorer",
    note: "Over each scorer's scored results; a pass/fail scorer's mean is its pass rate. The whisker is the 95% interval.",
    categories: scorers,
    series: points.map((p) => {
      const means = scorers.map((s) => p.scorerMeans.find((m) => m.scorer === s) ?? null);
      return {
        name: p.run.runId,
        color: color(p.run.runId),
        values: means.map((m) => m?.mean ?? null),
        labels: means.map((m) => (m === null ? "n/a" : formatScorerMean(m))),
        intervals: means.map((m) => (m === null ? null : { low: m.low, high: m.high })),
      };
    }),
    format: (v) => v.toFixed(3),
    max: 1,
  });
}

/** One histogram per scorer: where the scores fall, bins of equal width over 0–1. */
export function histogramCharts(report: RunReport, color: RunColor): string[] {
  return report.histograms.map((h) =>
    barChart({
      id: `histogram-${h.scorer}`,
      title: `Score histogram: ${h.scorer} (${h.scored} scored)`,
      note: "Each bin holds its lower edge, not its upper one; the last also holds 1.0.",
      categories: h.counts.map((_, i) => formatBin(i, h.counts.length)),
      series: [{ name: h.scorer, color: color(report.run.runId), values: h.counts }],
      format: (v) => String(v),
    }),
  );
}

export function truncationChart(report: RunReport, color: RunColor): string {
  const title = "Truncation rate by input length (tokens before fitting)";
  const buckets = report.truncation.byInputLength;
  // Without verifier calls there is nothing to draw; the headline says so (`absentLine`).
  if (buckets.length === 0) return "";
  return barChart({
    id: "truncation",
    title,
    note: "Share of verifier calls whose prompt was cut to fit the window, with cut/calls (refused calls, which did not fit at all, are counted apart).",
    categories: buckets.map((b) => formatBucket(b.fromTokens, b.toTokens)),
    series: [
      {
        name: "cut to fit",
        color: color(report.run.runId),
        values: buckets.map((b) => b.truncation.rate),
        labels: buckets.map((b) => rateLabel(b.truncation)),
      },
    ],
    format: percent,
    max: 1,
  });
}

/**
 * Left out when no run of the trend could be priced per solved task: without selection the
 * page already says why (`absentLine`); with it, one line says what is missing.
 */
export function costTrendChart(bundle: ReportBundle, color: RunColor): string {
  const title = "Cost per solved task across runs";
  if (bundle.trend.every((p) => p.costPerSolvedTask === null)) {
    if (!hasSelection(bundle.report)) return "";
    return chartMessage(
      "cost-trend",
      title,
      bundle.report.cost === null
        ? "No price table was given: pass --prices <file> to see cost per solved task."
        : "No run of the trend has a priced cost per solved task (no solved task, or usage that could not be priced).",
    );
  }
  const currency = bundle.report.cost?.currency ?? "";
  return barChart({
    id: "cost-trend",
    title,
    note: "n/a: no price table, or usage that could not be priced (never shown as 0).",
    categories: bundle.trend.map((p) => p.run.runId),
    series: [
      {
        name: "cost per solved task",
        values: bundle.trend.map((p) => p.costPerSolvedTask),
        colors: bundle.trend.map((p) => color(p.run.runId)),
      },
    ],
    format: (v) => formatMoney(v, currency),
  });
}

export function unscoredChart(report: RunReport, color: RunColor): string {
  const reasons = report.unscored.byReason;
  const title = `Unscored results by reason (${report.unscored.unscored.count} of ${report.unscored.results})`;
  if (report.unscored.results === 0) return "";
  if (reasons.length === 0) {
    return chartMessage(
      "unscored",
      title,
      `Nothing to draw: every one of the ${report.unscored.results} results was scored.`,
    );
  }
  return barChart({
    id: "unscored",
    title,
    categories: reasons.map((r) => r.reason),
    series: [
      { name: "unscored", color: color(report.run.runId), values: reasons.map((r) => r.count) },
    ],
    format: (v) => String(v),
  });
}
