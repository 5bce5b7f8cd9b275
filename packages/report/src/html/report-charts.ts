import type { ReportBundle, RunReport } from "@assay/core";
import { formatBin, formatBucket, formatMoney, formatRate } from "../format.js";
import { type BarChartSpec, barChart } from "./bar-chart.js";

const percent = (value: number) => formatRate(value);

/** pass@1 vs selected vs oracle, with the compared run beside it when there is one. */
export function accuracyChart(bundle: ReportBundle): string {
  const runs = [bundle.report, ...(bundle.compare === null ? [] : [bundle.compare])];
  return barChart({
    id: "accuracy",
    title: "Accuracy: first candidate vs verifier pick vs oracle",
    note:
      "The gap between the pick and the oracle is what a better verifier could still win. " +
      "All three count the same tasks; one with no scored candidate is unsolved for the pick.",
    categories: ["pass@1", "selected", "oracle"],
    series: runs.map((r) => ({
      name: r.run.runId,
      values: [r.accuracy.pass1.rate, r.accuracy.selected.rate, r.accuracy.oracle.rate],
    })),
    format: percent,
    max: 1,
  });
}

/** One histogram per scorer: where the scores fall, bins of equal width over 0–1. */
export function histogramCharts(report: RunReport): string[] {
  return report.histograms.map((h) =>
    barChart({
      id: `histogram-${h.scorer}`,
      title: `Score histogram: ${h.scorer} (${h.scored} scored)`,
      note: "Each bin holds its lower edge, not its upper one; the last also holds 1.0.",
      categories: h.counts.map((_, i) => formatBin(i, h.counts.length)),
      series: [{ name: h.scorer, values: h.counts }],
      format: (v) => String(v),
    }),
  );
}

export function truncationChart(report: RunReport): string {
  const buckets = report.truncation.byInputLength;
  return barChart({
    id: "truncation",
    title: "Truncation rate by input length (tokens before fitting)",
    note: "Share of verifier calls whose prompt was cut to fit the window (refused calls, which did not fit at all, are counted apart).",
    categories: buckets.map((b) => formatBucket(b.fromTokens, b.toTokens)),
    series: [{ name: "cut to fit", values: buckets.map((b) => b.truncation.rate) }],
    format: percent,
    max: 1,
  });
}

export function costTrendChart(bundle: ReportBundle): string {
  const currency = bundle.report.cost?.currency ?? "";
  return barChart({
    id: "cost-trend",
    title: "Cost per solved task across runs",
    note: "n/a: no price table, or usage that could not be priced (never shown as 0).",
    categories: bundle.trend.map((p) => p.run.runId),
    series: [
      { name: "cost per solved task", values: bundle.trend.map((p) => p.costPerSolvedTask) },
    ],
    format: (v) => formatMoney(v, currency),
  });
}

export function unscoredChart(report: RunReport): string {
  const reasons = report.unscored.byReason;
  return barChart({
    id: "unscored",
    title: `Unscored results by reason (${report.unscored.unscored.count} of ${report.unscored.results})`,
    categories: reasons.map((r) => r.reason),
    series: [{ name: "unscored", values: reasons.map((r) => r.count) }],
    format: (v) => String(v),
  } satisfies BarChartSpec);
}
