import type {
  EarlyStopReport,
  Rate,
  ReportBundle,
  RunReport,
  ScorerCalibration,
} from "@assay/core";
import Table from "cli-table3";
import { answerJoinLine } from "./answer-join-line.js";
import {
  DEFINITIONS_LINE,
  EARLY_STOPS_SHOWN,
  fallRule,
  formatBucket,
  formatCurve,
  formatFinal,
  formatMoney,
  formatRate,
  plural,
} from "./format.js";
import { pricingLines } from "./pricing-lines.js";
import { ablationTable } from "./render-ablation-table.js";
import { comparisonTable } from "./render-comparison-table.js";
import { costByModelTable } from "./render-cost-by-model.js";
import { pairwiseTable, verifierEffortTable } from "./render-pairwise-table.js";
import { selfPreferenceTable } from "./render-self-preference-table.js";
import { slicesTable } from "./render-slices-table.js";
import { formatScorerMean, scorerMeanInterval, scorerMeanKind } from "./scorer-means.js";

const STYLE = {
  style: { head: [], border: [] },
  chars: { mid: "", "left-mid": "", "mid-mid": "", "right-mid": "" },
};

/** Selection, cost, truncation and trend as terminal tables (after the run summary). */
export function renderReportTable(bundle: ReportBundle): string {
  const runs = [bundle.report, ...(bundle.compare === null ? [] : [bundle.compare])];
  const sections = [
    ...runs
      .filter((r) => r.run.abandonedAt != null)
      .map(
        (r) =>
          `Run ${r.run.runId} was abandoned at ${r.run.abandonedAt}: it will never finish, and its figures are what it stored before.`,
      ),
    headlineTable(runs),
  ];
  if (bundle.answers !== undefined) sections.push(answerJoinLine(bundle.answers));
  if (bundle.ablation !== undefined) sections.push(ablationTable(bundle.ablation));
  if (bundle.comparison !== undefined) sections.push(comparisonTable(bundle.comparison));
  if (bundle.slices !== undefined) sections.push(slicesTable(bundle.slices));
  for (const section of [pairwiseTable(bundle.report), verifierEffortTable(bundle.report)]) {
    if (section !== null) sections.push(section);
  }
  sections.push(truncationTable(bundle.report), reasonsLine(bundle.report));
  const calibration = bundle.report.calibration ?? [];
  if (calibration.length > 0) sections.push(calibrationTable(calibration));
  const preference = bundle.report.selfPreference ?? [];
  if (preference.length > 0) sections.push(selfPreferenceTable(preference));
  const byModel = costByModelTable(bundle.report);
  if (byModel !== null) sections.push(byModel);
  const basis = pricingLines(bundle.report);
  if (basis.lines.length > 0) {
    const note = basis.note === null ? "" : `\n  ${basis.note}`;
    sections.push(`Priced by\n${basis.lines.map((l) => `  - ${l}`).join("\n")}${note}`);
  }
  const warnings = bundle.report.cost?.warnings ?? [];
  if (warnings.length > 0)
    sections.push(`Cost warnings\n${warnings.map((w) => `  - ${w}`).join("\n")}`);
  if (bundle.trend.length > 1) sections.push(trendTable(bundle));
  if (bundle.earlyStops !== undefined) sections.push(earlyStopTable(bundle.earlyStops));
  sections.push(DEFINITIONS_LINE);
  return sections.join("\n\n");
}

/** The first candidates; "stop after step" counts steps from 1, as a person reads a trajectory. */
function earlyStopTable(stops: EarlyStopReport): string {
  const title = `Early-stop candidates (value ${fallRule(stops)}): ${stops.total}`;
  if (stops.candidates.length === 0) return `${title}, none`;
  const table = new Table({
    head: ["sample", "task", "scorer", "stop after step", "falls", "curve [fall]", "final"],
    ...STYLE,
  });
  const shown = stops.candidates.slice(0, EARLY_STOPS_SHOWN);
  for (const c of shown) {
    table.push([
      c.sampleId,
      c.taskId,
      c.scorer,
      c.fromStep + 1,
      c.falls,
      formatCurve(c),
      formatFinal(c),
    ]);
  }
  const more = stops.total - shown.length;
  const listed = stops.candidates.length;
  const rest = more > 0 ? `\n  … and ${more} more; --format json lists the first ${listed}` : "";
  return `${title}\n${table.toString()}${rest}`;
}

/** Solved tasks over tasks, as the pass rule counts them; "n/a" for a report without them. */
function solvedCell(report: RunReport): string {
  const solved = report.solved;
  if (solved === undefined) return "n/a";
  const { solved: count, tasks: of } = solved;
  return rateCell({ count, of, rate: of === 0 ? null : count / of });
}

function headlineTable(runs: readonly RunReport[]): string {
  const table = new Table({ head: ["", ...runs.map((r) => r.run.runId)], ...STYLE });
  const row = (label: string, cell: (r: RunReport) => string) =>
    table.push([label, ...runs.map(cell)]);
  const selection = runs.some((r) => r.accuracy.methods.length > 0);
  row("tasks / samples", (r) => `${r.tasks} / ${r.samples}`);
  for (const scorer of scorersOf(runs)) {
    row(`${scorer} ${meanKindOf(runs, scorer)}`, (r) => scorerMeanCell(r, scorer));
  }
  if (selection) {
    row("pass@1", (r) => rateCell(r.accuracy.pass1));
    row("verifier-selected", (r) => rateCell(r.accuracy.selected));
    row("oracle", (r) => rateCell(r.accuracy.oracle));
    row("no scored candidate", (r) => unselectedCell(r));
    // A run without selection beside one with: its solved tasks come from the pass rule.
    if (runs.some((r) => r.solved?.decidedBy === "pass_rule")) {
      row("solved (pass rule)", (r) =>
        r.solved?.decidedBy === "pass_rule" ? solvedCell(r) : "by the pick",
      );
    }
    row("top tie (continuous)", (r) => rateCell(r.ties.continuous));
    row("top tie (discrete judge)", (r) => rateCell(r.ties.discrete));
    row("cost per solved task", (r) => moneyCell(r, (c) => c.perSolvedTask.total));
    row("  generation", (r) => moneyCell(r, (c) => c.perSolvedTask.generation));
    row("  verification", (r) => moneyCell(r, (c) => c.perSolvedTask.verification));
  } else {
    // Without selection the pass rule decides solved tasks (docs/figures.md, "Pass and solved").
    const solvedByRule = runs.some((r) => r.solved !== undefined);
    if (solvedByRule) row("solved (pass rule)", (r) => solvedCell(r));
    if (runs.some((r) => r.cost !== null)) {
      row("cost", (r) => moneyCell(r, (c) => c.total));
      if (solvedByRule)
        row("cost per solved task", (r) => moneyCell(r, (c) => c.perSolvedTask.total));
    }
  }
  row("cost per sample", (r) => moneyCell(r, (c) => c.perSample));
  if (runs.some((r) => r.truncation.overall.of > 0)) {
    row("cut to fit", (r) => rateCell(r.truncation.overall));
    row("refused (did not fit)", (r) => rateCell(r.truncation.refused));
  }
  row("unscored", (r) => rateCell(r.unscored.unscored));
  const title = selection ? "Selection and cost" : "Scores and cost";
  const note = selection
    ? ""
    : runs.some((r) => r.solved !== undefined)
      ? "\nNo selection is stored, so pass@1, verifier-selected, oracle and ties do not apply; a task is solved when its first candidate passes the spec's pass rule."
      : "\nNo selection is stored, so pass@1, verifier-selected, oracle, ties and cost per solved task do not apply.";
  return `${title}\n${table.toString()}${note}`;
}

/** Every scorer any of the runs scored, by name. */
function scorersOf(runs: readonly { scorerMeans: readonly { scorer: string }[] }[]): string[] {
  return [...new Set(runs.flatMap((r) => r.scorerMeans.map((m) => m.scorer)))].sort();
}

/** "pass rate" when the scorer passes or fails in every run that has it, else "mean". */
function meanKindOf(runs: readonly RunReport[], scorer: string): string {
  const kinds = new Set(
    runs.flatMap((r) => r.scorerMeans.filter((m) => m.scorer === scorer).map(scorerMeanKind)),
  );
  return kinds.size === 1 ? ([...kinds][0] ?? "mean") : "mean";
}

function scorerMeanCell(report: RunReport, scorer: string): string {
  const m = report.scorerMeans.find((s) => s.scorer === scorer);
  return m === undefined ? "n/a" : `${formatScorerMean(m)}, ${scorerMeanInterval(m)}`;
}

function truncationTable(report: RunReport): string {
  if (report.truncation.byInputLength.length === 0)
    return "Truncation by input length: no verifier usage recorded";
  const table = new Table({
    head: ["input tokens", "calls", "cut to fit", "cut rate", "refused"],
    ...STYLE,
  });
  for (const b of report.truncation.byInputLength) {
    table.push([
      formatBucket(b.fromTokens, b.toTokens),
      b.truncation.of,
      b.truncation.count,
      formatRate(b.truncation.rate),
      b.refused,
    ]);
  }
  return `Truncation by input length\n${table.toString()}`;
}

/** Verifier scores against the answers' labels: per scorer its stored value, then each criterion. */
function calibrationTable(calibration: readonly ScorerCalibration[]): string {
  const table = new Table({
    head: ["scorer", "labelled", "AUROC", "accuracy@0.5", "Brier", "ECE (10 bins)"],
    ...STYLE,
  });
  const f = (v: number | null) => (v === null ? "n/a" : v.toFixed(3));
  for (const c of calibration) {
    const s = c.summary;
    table.push([
      c.criterion === "" ? c.scorer : `${c.scorer} / ${c.criterion}`,
      `${s.count} (${s.positives} true)`,
      f(s.auroc),
      f(s.accuracy),
      f(s.brier),
      f(s.ece),
    ]);
  }
  return `Calibration against labels\n${table.toString()}`;
}

function reasonsLine(report: RunReport): string {
  const reasons = report.unscored.byReason.map((r) => `${r.reason} ${r.count}`).join(", ");
  return `Unscored by reason: ${reasons === "" ? "none" : reasons}`;
}

function trendTable(bundle: ReportBundle): string {
  const scorers = scorersOf(bundle.trend);
  const selection = bundle.trend.some((p) => p.selected !== null);
  const table = new Table({
    head: [
      "run",
      "started",
      ...scorers,
      ...(selection ? ["pass@1", "selected", "oracle", "cost/solved"] : []),
      "cut to fit",
      "unscored",
    ],
    ...STYLE,
  });
  const currency = bundle.report.cost?.currency ?? "";
  for (const p of bundle.trend) {
    const means = scorers.map((scorer) => {
      const m = p.scorerMeans.find((s) => s.scorer === scorer);
      return m === undefined ? "n/a" : formatScorerMean(m);
    });
    const selected = selection
      ? [
          formatRate(p.pass1),
          formatRate(p.selected),
          formatRate(p.oracle),
          p.costPerSolvedTask === null ? "n/a" : formatMoney(p.costPerSolvedTask, currency),
        ]
      : [];
    // A run without rollups has no figures in a trend: its state says why.
    table.push([
      p.state === "completed" ? p.run.runId : `${p.run.runId} (${p.state})`,
      p.run.startedAt.slice(0, 16),
      ...means,
      ...selected,
      formatRate(p.truncationRate),
      formatRate(p.unscoredRate),
    ]);
  }
  const legend = scorers.length === 0 ? "" : " (scorer columns: mean or pass rate, with n)";
  return `Trend (oldest first)${legend}\n${table.toString()}`;
}

/** Tasks the verifier scored no candidate of: in all three denominators, unsolved when selected. */
function unselectedCell(report: RunReport): string {
  if (report.accuracy.methods.length === 0) return "n/a";
  return `${plural(report.accuracy.unselected, "task")}, counted unsolved`;
}

function rateCell(rate: Rate): string {
  return rate.of === 0 ? "n/a" : `${formatRate(rate.rate)} (${rate.count}/${rate.of})`;
}

function moneyCell(
  report: RunReport,
  pick: (cost: NonNullable<RunReport["cost"]>) => number | null,
): string {
  return report.cost === null ? "no prices" : formatMoney(pick(report.cost), report.cost.currency);
}
