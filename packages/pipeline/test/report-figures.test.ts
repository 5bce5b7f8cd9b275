import {
  type CountedDifferences,
  PriceTableSchema,
  pairedBootstrapOfCounts,
  type Rate,
  type ReportBundle,
  type RunSummary,
  SELF_PREFERENCE_MIN_ANSWERS,
  SELF_PREFERENCE_THRESHOLD,
} from "@assay/core";
import { formatMoney, renderReportHtml, renderReportJson, renderReportTable } from "@assay/report";
import type { Store } from "@assay/store";
import { driverOf } from "@assay/store/driver";
import { importPrices, runnerOf } from "@assay/store/reports";
import { propertyRuns } from "@assay/test-support/property-runs";
import { openTestStore, type TestStore } from "@assay/test-support/stores";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runReportBundle } from "../src/index.js";
import { type ExportedRun, exportRun } from "./figures/exported-run.js";
import {
  CHECK,
  type DrawnRun,
  drawnRun,
  FAMILY,
  JUDGE,
  storeDrawnRun,
  VERIFIER,
} from "./figures/generated-run.js";
import {
  accuracyOf,
  calibrationOf,
  costByModelOf,
  costOf,
  earlyStopsOf,
  histogramsOf,
  mean,
  type RecomputeOptions,
  scorerMeansOf,
  solvedByModelOf,
  type TaskFigures,
  tasksOf,
  truncationOf,
  unscoredOf,
  verifierTokensOf,
} from "./figures/recompute-figures.js";
import {
  type PassRule,
  passesOf,
  solvedFirstCandidatesOf,
  solvedTasksOf,
} from "./figures/recompute-pass.js";

// Every figure of `assay report` (the bundle behind its table, JSON and HTML) recomputed
// from what `assay export` writes, over generated runs. A failure names the figure and
// prints the seed and the run that replay it.

const SEED = Number(process.env.FIGURES_SEED ?? 2512);
const RUNS = propertyRuns(25);

const prices = PriceTableSchema.parse({
  models: {
    "fam-a-large": { input_per_million: 3, output_per_million: 15 },
    "fam-b-small": {
      input_per_million: 0.2,
      cached_input_per_million: 0.05,
      cache_write_per_million: 0.25,
      cache_write_1h_per_million: 0.4,
      output_per_million: 1,
    },
    "other-7b": { input_per_million: 0.5, output_per_million: 0.5 },
    "judge-0.6b": { input_per_million: 0.1, cached_input_per_million: 0.01 },
  },
});

/** The run's pass rule as its spec states it (generated-run.ts `specOf`). */
function passRuleOf(run: DrawnRun): PassRule {
  return {
    threshold: run.pass?.threshold ?? 0.5,
    scorers: run.pass?.scorers ?? {},
    solvedBy: run.pass?.solvedBy ?? null,
    // `selection.threshold` is left at its default.
    check: run.selection && run.withCheck ? { scorer: CHECK, threshold: 0.5 } : null,
  };
}

function recomputeOptions(run: DrawnRun): RecomputeOptions {
  return {
    verifier: VERIFIER,
    judge: run.judge === null ? null : JUDGE,
    check: run.withCheck ? CHECK : null,
    threshold: 0.5,
    prices,
  };
}

const close = (a: number | null | undefined, b: number | null | undefined) =>
  a === b ||
  (typeof a === "number" &&
    typeof b === "number" &&
    Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(b)));

/** Collects every figure that differs from its recomputation, named by its path. */
class Figures {
  readonly wrong: string[] = [];
  count(name: string, reported: unknown, recomputed: unknown): void {
    if (reported !== recomputed)
      this.wrong.push(`${name}: report ${String(reported)}, recomputed ${String(recomputed)}`);
  }
  number(name: string, reported: number | null | undefined, recomputed: number | null): void {
    if (!close(reported, recomputed))
      this.wrong.push(`${name}: report ${reported}, recomputed ${recomputed}`);
  }
  rate(name: string, reported: Rate | undefined, count: number, of: number): void {
    if (reported === undefined) {
      this.wrong.push(`${name}: not reported, recomputed ${count}/${of}`);
      return;
    }
    this.count(`${name}.count`, reported.count, count);
    this.count(`${name}.of`, reported.of, of);
    this.number(`${name}.rate`, reported.rate, of === 0 ? null : count / of);
  }
  same(name: string, reported: unknown, recomputed: unknown): void {
    const a = JSON.stringify(sortedKeys(reported));
    const b = JSON.stringify(sortedKeys(recomputed));
    if (a !== b) this.wrong.push(`${name}: report ${a}, recomputed ${b}`);
  }
}

function sortedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortedKeys);
  if (typeof value !== "object" || value === null) return value;
  return Object.fromEntries(
    Object.entries(value)
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([k, v]) => [k, sortedKeys(v)]),
  );
}

function checkRun(bundle: ReportBundle, exported: ExportedRun, run: DrawnRun): string[] {
  const f = new Figures();
  const report = bundle.report;
  const options = recomputeOptions(run);
  const tasks = tasksOf(exported, options);
  f.count("samples", report.samples, exported.samples.length);
  f.count("tasks", report.tasks, tasks.length);

  // The pick itself: best-of-N (and the tournament derived from the same scores) takes the
  // highest verifier score, an exact tie going to the lowest candidate index.
  const stored = new Map(exported.selections.map((s) => [s.task_id, s.selected_sample_id]));
  f.count("selections stored", exported.selections.length > 0, run.selection && tasks.length > 0);
  for (const task of run.selection ? tasks : []) {
    f.count(
      `pick of ${task.taskId}`,
      stored.get(task.taskId) ?? null,
      task.pick?.sample.sample_id ?? null,
    );
  }
  for (const task of tasks.filter((t) => t.judged.length > 0)) {
    const compared = new Set(task.judged.flatMap((p) => [p.a, p.b]));
    const index = task.pick?.sample.candidate_index;
    f.count(
      `judged pick of ${task.taskId} was compared`,
      index !== undefined && compared.has(index),
      true,
    );
  }
  checkPairwise(f, bundle, run, tasks);
  // Without selection nothing is picked: every accuracy figure is over no task.
  const a = accuracyOf(run.selection ? tasks : []);
  f.count("accuracy.tasks", report.accuracy.tasks, run.selection ? a.tasks : tasks.length);
  f.count("accuracy.selectedTasks", report.accuracy.selectedTasks, a.selectedTasks);
  f.count("accuracy.unselected", report.accuracy.unselected, a.unselected);
  f.rate("accuracy.pass1", report.accuracy.pass1, a.pass1, a.counted);
  f.rate("accuracy.selected", report.accuracy.selected, a.selected, a.counted);
  f.rate("accuracy.oracle", report.accuracy.oracle, a.oracle, a.counted);
  f.rate("ties.continuous", report.ties.continuous, a.ties.count, a.ties.of);
  f.rate("ties.discrete", report.ties.discrete, a.discreteTies.count, a.discreteTies.of);

  const t = truncationOf(exported);
  f.rate("truncation.overall", report.truncation.overall, t.cut, t.calls);
  f.rate("truncation.refused", report.truncation.refused, t.refused, t.calls);
  f.same(
    "truncation.byInputLength",
    report.truncation.byInputLength.map((b) => [
      b.fromTokens,
      b.truncation.of,
      b.truncation.count,
      b.refused,
    ]),
    t.byInputLength.map((b) => [b.fromTokens, b.calls, b.cut, b.refused]),
  );

  const u = unscoredOf(exported.scores);
  const unscoredCount = Object.values(u.byReason).reduce((s, n) => s + n, 0);
  f.rate("unscored.unscored", report.unscored.unscored, unscoredCount, u.results);
  f.count("unscored.results", report.unscored.results, u.results);
  f.same(
    "unscored.byReason",
    Object.fromEntries(report.unscored.byReason.map((r) => [r.reason, r.count])),
    u.byReason,
  );
  f.same(
    "histograms",
    Object.fromEntries(report.histograms.map((h) => [h.scorer, h.counts])),
    histogramsOf(exported.scores),
  );

  const means = scorerMeansOf(exported.scores);
  f.same(
    "scorerMeans",
    report.scorerMeans.map((m) => [m.scorer, m.scored, m.passes]),
    means.map((m) => [m.scorer, m.scored, m.passes]),
  );
  for (const m of means) {
    const reported = report.scorerMeans.find((r) => r.scorer === m.scorer);
    // Sums of squares lose a few bits against the two-pass deviation: 1e-6 is far below
    // anything the report prints.
    f.number(`scorerMeans.${m.scorer}.mean`, reported?.mean, m.mean);
    for (const end of ["low", "high"] as const) {
      const r = reported?.[end];
      if (r === undefined || Math.abs(r - m[end]) > 1e-6) {
        f.wrong.push(`scorerMeans.${m.scorer}.${end}: report ${r}, recomputed ${m[end]}`);
      }
    }
  }

  // Each scorer by its threshold under the spec's `pass` section (or 0.5); the selection's
  // check scorer by the selection's threshold.
  const rule = passRuleOf(run);
  const passes = passesOf(exported.scores, rule);
  f.same(
    "scorerPasses",
    report.scorerPasses?.map((p) => [p.scorer, p.rule, p.scored, p.unscored, p.passed.count]),
    passes,
  );

  const cost = costOf(exported.usage, prices, idleRoles(exported));
  // With selection the pick decides solved tasks; without, the pass rule on the first candidate.
  const solved = run.selection
    ? a.selected
    : solvedTasksOf(exported.samples, exported.scores, rule).size;
  f.count("solved.decidedBy", report.solved?.decidedBy, run.selection ? "selection" : "pass_rule");
  f.count("solved.solved", report.solved?.solved, solved);
  f.count("solved.tasks", report.solved?.tasks, tasks.length);
  const per = (amount: number | null, n: number) =>
    amount === null || n === 0 ? null : amount / n;
  f.number("cost.total", report.cost?.total, cost.total);
  f.number("cost.generation", report.cost?.generation, cost.generation);
  f.number("cost.verification", report.cost?.verification, cost.verification);
  f.count("cost.solvedTasks", report.cost?.solvedTasks, solved);
  f.number("cost.perSolvedTask.total", report.cost?.perSolvedTask.total, per(cost.total, solved));
  f.number("cost.perSample", report.cost?.perSample, per(cost.total, exported.samples.length));
  // Each generator model and the verifier: tokens (cache writes split by lifetime) and cost.
  const byModel = costByModelOf(exported.usage, prices);
  const reportedByModel = [...(report.cost?.byModel ?? [])].sort(
    (x, y) => x.role.localeCompare(y.role) || (x.model < y.model ? -1 : x.model > y.model ? 1 : 0),
  );
  f.same(
    "cost.byModel",
    reportedByModel.map((m) => [
      m.role,
      m.model,
      m.inputTokens,
      m.cachedInputTokens,
      m.cacheWriteTokens - (m.cacheWrite1hTokens ?? 0),
      m.cacheWrite1hTokens ?? 0,
      m.outputTokens,
    ]),
    byModel.map((m) => [m.role, m.model, ...m.tokens]),
  );
  // Each generator model's own solved tasks: those whose deciding candidate it generated.
  const solvedByModel = solvedByModelOf(exported.usage, decidingSamplesOf(exported, run, tasks));
  for (const m of byModel) {
    const reported = reportedByModel.find((r) => r.role === m.role && r.model === m.model);
    f.number(`cost.byModel.${m.role}.${m.model}`, reported?.cost, m.cost);
    f.count(
      `cost.byModel.${m.role}.${m.model}.solved`,
      reported?.solved,
      m.role === "generator" ? (solvedByModel.get(m.model) ?? 0) : undefined,
    );
  }

  const tokens = verifierTokensOf(exported.usage);
  const effort = report.verifierEffort;
  f.count("verifierEffort.solvedTasks", effort?.solvedTasks, solved);
  f.number(
    "verifierEffort.tokensPerSolvedTask",
    effort?.tokensPerSolvedTask,
    per(tokens.computed + tokens.cached, solved),
  );
  f.number(
    "verifierEffort.promptsPerSolvedTask",
    effort?.promptsPerSolvedTask,
    tokens.prompts === null ? null : per(tokens.prompts, solved),
  );
  f.number(
    "verifierEffort.forwardPassesPerSolvedTask",
    effort?.forwardPassesPerSolvedTask,
    tokens.passes === null ? null : per(tokens.passes, solved),
  );
  f.rate(
    "verifierEffort.cachedShare",
    effort?.cachedShare,
    tokens.cached,
    tokens.computed + tokens.cached,
  );

  checkCalibration(f, bundle, exported);
  checkSelfPreference(f, bundle, exported);
  checkEarlyStops(f, bundle, exported);
  checkSlices(f, bundle, exported, run, run.selection ? tasks : []);
  if (run.selection) checkAblation(f, bundle, exported, run, tasks);
  else f.count("ablation without selection", bundle.ablation, undefined);

  const point = bundle.trend.at(-1);
  f.count("trend point is the run", point?.run.runId, report.run.runId);
  f.number("trend.pass1", point?.pass1, report.accuracy.pass1.rate);
  f.number("trend.selected", point?.selected, report.accuracy.selected.rate);
  f.number("trend.truncationRate", point?.truncationRate, report.truncation.overall.rate);
  f.number("trend.costPerSolvedTask", point?.costPerSolvedTask, per(cost.total, solved));
  f.same("trend.scorerMeans", point?.scorerMeans, report.scorerMeans);
  return f.wrong;
}

/**
 * A judged run: best-of-N's pick beside the judge's over the tasks where the first
 * candidate, the oracle and both picks are known; position bias over the pairs judged in
 * both orders (the preferred answer changed with the order).
 */
function checkPairwise(
  f: Figures,
  bundle: ReportBundle,
  run: DrawnRun,
  tasks: TaskFigures[],
): void {
  const pairwise = bundle.report.pairwise ?? null;
  if (run.judge === null || tasks.length === 0) {
    f.count("pairwise without a judge or tasks", pairwise, null);
    return;
  }
  const correct = (c: TaskFigures["pick"]) => (c === null ? false : c.correct);
  const counted = tasks.filter(
    (t) =>
      t.first !== null &&
      t.oracle !== null &&
      correct(t.pick) !== null &&
      correct(t.pointwise) !== null,
  );
  const pairs = tasks.flatMap((t) => t.judged);
  const flipped = pairs.filter((p) => Math.sign(p.aFirst - 0.5) !== Math.sign(p.bFirst - 0.5));
  f.count("pairwise.tasks", pairwise?.tasks, tasks.length);
  f.rate(
    "pairwise.pointwiseSelected",
    pairwise?.pointwiseSelected,
    counted.filter((t) => correct(t.pointwise)).length,
    counted.length,
  );
  f.rate(
    "pairwise.pairwiseSelected",
    pairwise?.pairwiseSelected,
    counted.filter((t) => correct(t.pick)).length,
    counted.length,
  );
  f.rate("pairwise.positionBias", pairwise?.positionBias, flipped.length, pairs.length);
}

type VerifierDetail = { criteria?: { name: string; variants: { value: number | null }[] }[] };

/**
 * Calibration of the verifier's stored value and, for a verifier of several criteria, of each
 * criterion's value (the mean of its variants, left out when one is missing or it leaves
 * [0, 1]), over scored results on labelled answers.
 */
function checkCalibration(f: Figures, bundle: ReportBundle, exported: ExportedRun): void {
  const labels = new Map(exported.samples.map((s) => [s.sample_id, s.label]));
  const rows = exported.scores.filter(
    (s) => s.scorer === VERIFIER && s.status === "scored" && labels.get(s.sample_id) != null,
  );
  const label = (id: string) => labels.get(id) === true;
  const byCriterion = new Map<string, { score: number; label: boolean }[]>([
    ["", rows.map((s) => ({ score: s.value as number, label: label(s.sample_id) }))],
  ]);
  for (const s of rows) {
    const criteria = (s.detail as VerifierDetail | null)?.criteria ?? [];
    if (criteria.length < 2) continue;
    for (const c of criteria) {
      const values = c.variants.map((v) => v.value);
      if (values.length === 0 || values.some((v) => v === null)) continue;
      const value = mean(values as number[]);
      if (value < 0 || value > 1) continue;
      const list = byCriterion.get(c.name) ?? [];
      list.push({ score: value, label: label(s.sample_id) });
      byCriterion.set(c.name, list);
    }
  }
  const reported = (bundle.report.calibration ?? []).filter((c) => c.scorer === VERIFIER);
  f.same(
    "calibration rows",
    reported.map((c) => c.criterion).sort(),
    [...byCriterion]
      .filter(([, points]) => points.length > 0)
      .map(([name]) => name)
      .sort(),
  );
  for (const [criterion, points] of byCriterion) {
    if (points.length === 0) continue;
    const c = calibrationOf(points);
    const s = reported.find((r) => r.criterion === criterion)?.summary;
    const name = `calibration[${criterion}]`;
    f.count(`${name}.count`, s?.count, c.count);
    f.count(`${name}.positives`, s?.positives, c.positives);
    f.number(`${name}.auroc`, s?.auroc, c.auroc);
    f.number(`${name}.accuracy`, s?.accuracy, c.accuracy);
    f.number(`${name}.brier`, s?.brier, c.brier);
    f.number(`${name}.ece`, s?.ece, c.ece);
    f.same(
      `${name}.bins`,
      s?.bins.map((b) => b.count),
      c.binCounts,
    );
  }
}

/**
 * Self-preference: the verifier's scored results on labelled answers with a generator,
 * split by family (model name containing it) and correctness; the gap is the mean over
 * correct and incorrect of same − other. It warns only with enough answers in every group,
 * an interval above 0 and a gap above the threshold.
 */
function checkSelfPreference(f: Figures, bundle: ReportBundle, exported: ExportedRun): void {
  const labels = new Map(exported.samples.map((s) => [s.sample_id, s.label]));
  const generators = new Map(
    exported.usage.filter((u) => u.role === "generator").map((u) => [u.sample_id, u.model]),
  );
  const groups = {
    sameTrue: [] as number[],
    sameFalse: [] as number[],
    otherTrue: [] as number[],
    otherFalse: [] as number[],
  };
  for (const s of exported.scores) {
    const label = labels.get(s.sample_id);
    const generator = generators.get(s.sample_id);
    if (s.scorer !== VERIFIER || s.status !== "scored" || label == null || generator === undefined)
      continue;
    const same = generator.toLowerCase().includes(FAMILY);
    groups[`${same ? "same" : "other"}${label ? "True" : "False"}`].push(s.value as number);
  }
  const reported = (bundle.report.selfPreference ?? []).find((p) => p.scorer === VERIFIER);
  const answers = Object.values(groups).reduce((n, g) => n + g.length, 0);
  if (answers === 0) {
    f.count("self-preference without answers", reported, undefined);
    return;
  }
  const m = (g: number[]) => (g.length === 0 ? null : mean(g));
  const diff = (a: number[], b: number[]) => {
    const x = m(a);
    const y = m(b);
    return x === null || y === null ? null : x - y;
  };
  const correct = diff(groups.sameTrue, groups.otherTrue);
  const incorrect = diff(groups.sameFalse, groups.otherFalse);
  const gap = correct === null || incorrect === null ? null : (correct + incorrect) / 2;
  f.count(
    "selfPreference.sameFamily.correct.answers",
    reported?.sameFamily.correct.answers,
    groups.sameTrue.length,
  );
  f.count(
    "selfPreference.otherFamily.incorrect.answers",
    reported?.otherFamily.incorrect.answers,
    groups.otherFalse.length,
  );
  f.number(
    "selfPreference.sameFamily.incorrect.mean",
    reported?.sameFamily.incorrect.mean,
    m(groups.sameFalse),
  );
  f.number(
    "selfPreference.otherFamily.correct.mean",
    reported?.otherFamily.correct.mean,
    m(groups.otherTrue),
  );
  f.number("selfPreference.gap", reported?.gap, gap);
  const enough = Object.values(groups).every((g) => g.length >= SELF_PREFERENCE_MIN_ANSWERS);
  f.count("selfPreference.enoughAnswers", reported?.enoughAnswers, enough);
  const low = reported?.low ?? null;
  const high = reported?.high ?? null;
  if (gap !== null && (low === null || high === null || low > gap + 1e-12 || high < gap - 1e-12)) {
    f.count("selfPreference interval holds the gap", `[${low}, ${high}]`, gap);
  }
  f.count(
    "selfPreference.warning",
    reported?.warning,
    enough && gap !== null && low !== null && low > 0 && gap > SELF_PREFERENCE_THRESHOLD,
  );
}

function checkEarlyStops(f: Figures, bundle: ReportBundle, exported: ExportedRun): void {
  const tasks = new Map(exported.samples.map((s) => [s.sample_id, s.task_id]));
  const found = earlyStopsOf(exported.scores, tasks).sort(
    (a, b) =>
      b.falls - a.falls ||
      b.drop - a.drop ||
      (a.taskId < b.taskId ? -1 : a.taskId > b.taskId ? 1 : 0) ||
      (a.sampleId < b.sampleId ? -1 : 1),
  );
  const stops = bundle.earlyStops;
  f.count("earlyStops.total", stops?.total, found.length);
  f.same(
    "earlyStops.candidates",
    stops?.candidates.map((c) => [c.sampleId, c.fromStep, c.falls]),
    found.map((c) => [c.sampleId, c.fromStep, c.falls]),
  );
}

function checkSlices(
  f: Figures,
  bundle: ReportBundle,
  exported: ExportedRun,
  run: DrawnRun,
  picked: TaskFigures[],
): void {
  const rule = passRuleOf(run);
  const slices = bundle.slices?.slices ?? [];
  // A completed run's declared field is read from its slice rollups; any other, raw rows.
  f.same(
    "slices.fromRawRows",
    bundle.slices?.fromRawRows ?? null,
    run.declaresKind ? null : "field not declared in fields.metadata",
  );
  const kindOf = (metadata: Record<string, unknown>) =>
    metadata.kind === undefined ? null : String(metadata.kind);
  const sampleKind = new Map(exported.samples.map((s) => [s.sample_id, kindOf(s.metadata)]));
  const values = new Set([...sampleKind.values()]);
  f.same("slices.values", slices.map((s) => s.value).sort(), [...values].sort());
  for (const value of values) {
    const slice = slices.find((s) => s.value === value);
    const name = `slices[${value}]`;
    if (slice === undefined) continue;
    const inSlice = picked.filter((t) => kindOf(t.candidates[0]?.sample.metadata ?? {}) === value);
    const a = accuracyOf(inSlice);
    // A task belongs to the slice of its first candidate (lowest index, then line).
    const firstOf = new Map<string, (typeof exported.samples)[number]>();
    for (const s of [...exported.samples].sort(
      (x, y) => x.candidate_index - y.candidate_index || x.line - y.line,
    )) {
      if (!firstOf.has(s.task_id)) firstOf.set(s.task_id, s);
    }
    const sliceTasks = new Set(
      [...firstOf].filter(([, s]) => kindOf(s.metadata) === value).map(([id]) => id),
    );
    f.count(`${name}.tasks`, slice.tasks, sliceTasks.size);
    const byRule = [...solvedTasksOf(exported.samples, exported.scores, rule)].filter((id) =>
      sliceTasks.has(id),
    ).length;
    const solved = run.selection ? a.selected : byRule;
    f.count(`${name}.solved.solved`, slice.solved?.solved, solved);
    f.count(
      `${name}.solved.decidedBy`,
      slice.solved?.decidedBy,
      run.selection ? "selection" : "pass_rule",
    );
    f.count(
      `${name}.samples`,
      slice.samples,
      [...sampleKind.values()].filter((k) => k === value).length,
    );
    f.rate(`${name}.pass1`, slice.pass1, a.pass1, a.counted);
    f.rate(`${name}.selected`, slice.selected, a.selected, a.counted);
    f.rate(`${name}.oracle`, slice.oracle, a.oracle, a.counted);
    f.count(`${name}.unselected`, slice.unselected, a.unselected);
    f.rate(`${name}.tie`, slice.tie, a.ties.count, a.ties.of);
    const scores = exported.scores.filter((s) => sampleKind.get(s.sample_id) === value);
    const u = unscoredOf(scores);
    f.rate(
      `${name}.unscored`,
      slice.unscored,
      Object.values(u.byReason).reduce((s, n) => s + n, 0),
      u.results,
    );
    const t = truncationOf({
      ...exported,
      truncations: exported.truncations.filter((r) => sampleKind.get(r.sample_id) === value),
    });
    f.rate(`${name}.truncation`, slice.truncation, t.cut, t.calls);
    const verified = scores.some((s) => s.scorer === VERIFIER);
    const cost = costOf(
      exported.usage.filter((r) => sampleKind.get(r.sample_id) === value),
      prices,
      verified ? [] : ["verifier"],
    );
    f.number(`${name}.cost.total`, slice.cost?.total, cost.total);
    f.number(
      `${name}.cost.perSolvedTask`,
      slice.cost?.perSolvedTask,
      cost.total === null || solved === 0 ? null : cost.total / solved,
    );
  }
}

function checkAblation(
  f: Figures,
  bundle: ReportBundle,
  exported: ExportedRun,
  run: DrawnRun,
  tasks: TaskFigures[],
): void {
  const ablation = bundle.ablation;
  const wanted = run.criteria.length > 1 || run.variants > 1;
  const hasValues = exported.scores.some((s) => s.scorer === VERIFIER && s.status === "scored");
  if (!wanted || !hasValues || tasks.length === 0) return;
  const full = ablation?.rows.find((r) => r.kind === "full");
  f.rate(
    "ablation.full.selected (the run)",
    full?.selected,
    bundle.report.accuracy.selected.count,
    bundle.report.accuracy.selected.of,
  );
  // Each criterion alone: the mean of its variants, re-selected the same way.
  const detailOf = new Map(
    exported.scores.filter((s) => s.scorer === VERIFIER).map((s) => [s.sample_id, s.detail]),
  );
  for (const criterion of run.criteria.length > 1 ? run.criteria : []) {
    const value = (sampleId: string): number | null => {
      const detail = detailOf.get(sampleId) as {
        criteria?: { name: string; variants: { value: number | null }[] }[];
      } | null;
      const c = detail?.criteria?.find((x) => x.name === criterion);
      if (c === undefined || c.variants.length === 0 || c.variants.some((v) => v.value === null))
        return null;
      return mean(c.variants.map((v) => v.value as number));
    };
    let counted = 0;
    let selected = 0;
    for (const task of tasks) {
      let pick: { score: number; correct: boolean | null } | null = null;
      // As in the run: the judge's pick where it compared a pair, else the re-averaged score.
      if (task.judged.length > 0)
        pick = { score: 1, correct: task.pick === null ? false : task.pick.correct };
      else
        for (const c of task.candidates) {
          const score = value(c.sample.sample_id);
          if (score !== null && (pick === null || score > pick.score))
            pick = { score, correct: c.correct };
        }
      // The run's rule for which tasks count, applied to this re-aggregation's pick.
      if (task.first === null || task.oracle === null || pick?.correct === null) continue;
      counted += 1;
      if (pick?.correct === true) selected += 1;
    }
    const row = ablation?.rows.find((r) => r.kind === "criterion" && r.criterion === criterion);
    f.rate(`ablation[${criterion}].selected`, row?.selected, selected, counted);
  }
}

/**
 * The paired differences: per task (by id, in id order) the accuracies over tasks counted in
 * both runs and each scorer's mean of scored results over tasks both runs scored. The
 * interval is the seeded paired bootstrap over those recomputed values.
 */
function checkComparison(
  f: Figures,
  bundle: ReportBundle,
  current: { run: DrawnRun; exported: ExportedRun },
  baseline: { run: DrawnRun; exported: ExportedRun },
): void {
  const comparison = bundle.comparison;
  if (comparison === undefined) {
    f.count("comparison", "missing", "present");
    return;
  }
  const a = new Map(
    tasksOf(current.exported, recomputeOptions(current.run)).map((t) => [t.taskId, t]),
  );
  const b = new Map(
    tasksOf(baseline.exported, recomputeOptions(baseline.run)).map((t) => [t.taskId, t]),
  );
  // A run without selection stores no pick, so none of its tasks count in the accuracies.
  const counted = (run: DrawnRun, task: TaskFigures | undefined) =>
    run.selection && task?.counted === true;
  const both = [...a.keys()]
    .filter((id) => counted(current.run, a.get(id)) && counted(baseline.run, b.get(id)))
    .sort(byText);
  const paired: { metric: string; current: number[]; baseline: number[] }[] = [];
  if (both.length > 0) {
    for (const [metric, of] of [
      ["pass@1", (t: TaskFigures) => t.first],
      ["selected", (t: TaskFigures) => t.picked],
      ["oracle", (t: TaskFigures) => t.oracle],
    ] as const) {
      paired.push({
        metric,
        current: both.map((id) => (of(a.get(id) as TaskFigures) ? 1 : 0)),
        baseline: both.map((id) => (of(b.get(id) as TaskFigures) ? 1 : 0)),
      });
    }
  }
  const meansA = scorerTaskMeans(current.exported);
  const meansB = scorerTaskMeans(baseline.exported);
  for (const scorer of [...meansA.keys()].sort(byText)) {
    const x = meansA.get(scorer) as Map<string, number>;
    const y = meansB.get(scorer);
    const tasks = [...x.keys()].filter((id) => y?.has(id)).sort(byText);
    if (tasks.length === 0) continue;
    paired.push({
      metric: scorer,
      current: tasks.map((id) => x.get(id) as number),
      baseline: tasks.map((id) => y?.get(id) as number),
    });
  }
  f.same(
    "comparison.metrics",
    comparison.differences.map((d) => d.metric),
    paired.map((p) => p.metric),
  );
  for (const p of paired) {
    const d = comparison.differences.find((x) => x.metric === p.metric);
    const name = `comparison[${p.metric}]`;
    f.count(`${name}.tasks`, d?.tasks, p.current.length);
    f.number(`${name}.current`, d?.current, mean(p.current));
    f.number(`${name}.baseline`, d?.baseline, mean(p.baseline));
    f.number(`${name}.difference`, d?.difference, mean(p.current) - mean(p.baseline));
    // The interval is drawn from the tasks counted by difference, in ascending order.
    const interval = pairedBootstrapOfCounts(countedDifferences(p.current, p.baseline), comparison);
    f.number(`${name}.low`, d?.low, interval.low);
    f.number(`${name}.high`, d?.high, interval.high);
  }
}

function countedDifferences(current: number[], baseline: number[]): CountedDifferences {
  const counts = new Map<number, number>();
  current.forEach((c, i) => {
    const d = c - (baseline[i] as number);
    counts.set(d, (counts.get(d) ?? 0) + 1);
  });
  return {
    currentSum: current.reduce((sum, v) => sum + v, 0),
    baselineSum: baseline.reduce((sum, v) => sum + v, 0),
    differences: [...counts].sort(([x], [y]) => x - y).map(([value, count]) => ({ value, count })),
  };
}

function scorerTaskMeans(exported: ExportedRun): Map<string, Map<string, number>> {
  const taskOf = new Map(exported.samples.map((s) => [s.sample_id, s.task_id]));
  const values = new Map<string, Map<string, number[]>>();
  for (const s of exported.scores) {
    // A judge's pair prompts are no sample of a task: a scorer's mean is over samples.
    const task = taskOf.get(s.sample_id);
    if (s.status !== "scored" || task === undefined) continue;
    const byTask = values.get(s.scorer) ?? new Map<string, number[]>();
    byTask.set(task, [...(byTask.get(task) ?? []), s.value as number]);
    values.set(s.scorer, byTask);
  }
  return new Map(
    [...values].map(([scorer, byTask]) => [
      scorer,
      new Map([...byTask].map(([task, v]) => [task, mean(v)])),
    ]),
  );
}

function byText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * The analyst views against the same recomputation: solved tasks, each scorer's passes under
 * its rule, and the cost per solved task where the run's generation can be priced.
 */
async function checkViews(
  store: Store,
  runId: string,
  exported: ExportedRun,
  run: DrawnRun,
): Promise<string[]> {
  const f = new Figures();
  const query = async (sql: string) =>
    (await runnerOf(driverOf(store)).query<Record<string, unknown>>(sql, [runId])).rows;
  const n = (v: unknown) => (v === null || v === undefined ? null : Number(v));
  const rule = passRuleOf(run);
  const tasks = tasksOf(exported, recomputeOptions(run));
  const solved = run.selection
    ? accuracyOf(tasks).selected
    : solvedTasksOf(exported.samples, exported.scores, rule).size;
  const solvedByModel = solvedByModelOf(exported.usage, decidingSamplesOf(exported, run, tasks));
  const [runRow] = await query("SELECT solved, tasks FROM analyst_runs WHERE run_id = $1");
  f.count("analyst_runs.solved", n(runRow?.solved), solved);
  const results = await query(
    "SELECT scorer, pass_rule, scored, unscored, passed FROM analyst_scorer_results WHERE run_id = $1 ORDER BY scorer",
  );
  f.same(
    "analyst_scorer_results",
    results.map((r) => [r.scorer, r.pass_rule, n(r.scored), n(r.unscored), n(r.passed)]),
    passesOf(exported.scores, rule),
  );
  const [cost] = await query(
    "SELECT solved, cost_usd, cost_per_solved_usd FROM analyst_cost_per_solved WHERE run_id = $1",
  );
  f.count("analyst_cost_per_solved.solved", n(cost?.solved), solved);
  const roles = new Set(exported.usage.map((u) => u.role));
  if (roles.has("generator")) {
    const total = costOf(exported.usage, prices, idleRoles(exported)).total;
    f.number("analyst_cost_per_solved.cost_usd", n(cost?.cost_usd), total);
    f.number(
      "analyst_cost_per_solved.cost_per_solved_usd",
      n(cost?.cost_per_solved_usd),
      total === null || solved === 0 ? null : total / solved,
    );
  }
  // Each model's tokens, cost and cost per solved task, recomputed from the export.
  const byModel = await query(
    `SELECT role, model, input_tokens, cached_input_tokens, cache_write_tokens,
            cache_write_1h_tokens, output_tokens, solved, cost_usd, cost_per_solved_usd,
            model_solved, cost_per_model_solved_usd
     FROM analyst_cost_by_model WHERE run_id = $1`,
  );
  const expected = costByModelOf(exported.usage, prices);
  f.count("analyst_cost_by_model rows", byModel.length, expected.length);
  for (const m of expected) {
    const row = byModel.find((r) => r.role === m.role && r.model === m.model);
    const name = `analyst_cost_by_model.${m.role}.${m.model}`;
    const [input, cached, fiveMinute, oneHour, output] = m.tokens;
    f.same(
      `${name} tokens`,
      [
        row?.input_tokens,
        row?.cached_input_tokens,
        row?.cache_write_tokens,
        row?.cache_write_1h_tokens,
        row?.output_tokens,
      ].map(n),
      [input, cached, (fiveMinute as number) + (oneHour as number), oneHour, output],
    );
    f.count(`${name}.solved`, n(row?.solved), solved);
    f.number(`${name}.cost_usd`, n(row?.cost_usd), m.cost);
    f.number(
      `${name}.cost_per_solved_usd`,
      n(row?.cost_per_solved_usd),
      m.cost === null || solved === 0 ? null : m.cost / solved,
    );
    const own = m.role === "generator" ? (solvedByModel.get(m.model) ?? 0) : null;
    f.count(`${name}.model_solved`, n(row?.model_solved), own);
    f.number(
      `${name}.cost_per_model_solved_usd`,
      n(row?.cost_per_model_solved_usd),
      m.cost === null || own === null || own === 0 ? null : m.cost / own,
    );
  }
  return f.wrong;
}

/**
 * Each solved task's deciding sample: with selection its pick (a task counted and picked
 * correctly), else its first candidate under the pass rule.
 */
function decidingSamplesOf(
  exported: ExportedRun,
  run: DrawnRun,
  tasks: readonly TaskFigures[],
): string[] {
  if (!run.selection) {
    return [
      ...solvedFirstCandidatesOf(exported.samples, exported.scores, passRuleOf(run)).values(),
    ];
  }
  return tasks
    .filter((t) => t.counted && t.picked === true && t.pick !== null)
    .map((t) => t.pick?.sample.sample_id as string);
}

function checkRendering(bundle: ReportBundle, summary: RunSummary): string[] {
  const wrong: string[] = [];
  const summaryJson = renderReportJson(summary, bundle);
  // The run summary printed above the report names the same calls the same way.
  const t = bundle.report.truncation;
  for (const [name, said, reported] of [
    ["calls", summary.truncation.calls, t.overall.of],
    ["cut", summary.truncation.truncated, t.overall.count],
    ["refused", summary.truncation.refused, t.refused.count],
  ] as const) {
    if (said !== reported) wrong.push(`summary says ${said} ${name}, report ${reported}`);
  }
  const json = JSON.parse(summaryJson) as { report: unknown };
  if (JSON.stringify(json.report) !== JSON.stringify(bundle.report))
    wrong.push("JSON report differs from the bundle");
  const table = renderReportTable(bundle);
  const html = renderReportHtml(bundle);
  const r = bundle.report;
  // The table gives each model its line: role, model, then its tokens and cost.
  for (const m of r.cost?.byModel ?? []) {
    const line = table
      .split("\n")
      .find((l) =>
        new RegExp(`^│\\s*${m.role}\\s+│\\s+${m.model.replace(/\./g, "\\.")}\\s+│`).test(l),
      );
    const money = formatMoney(m.cost, r.cost?.currency ?? "");
    if (line === undefined || !line.includes(money))
      wrong.push(`table lacks the cost by model line of ${m.role} ${m.model} (${money})`);
  }
  for (const [name, rate] of [
    ["pass@1", r.accuracy.pass1],
    ["selected", r.accuracy.selected],
    ["oracle", r.accuracy.oracle],
    ["truncated", r.truncation.overall],
    ["unscored", r.unscored.unscored],
  ] as const) {
    const text = rate.rate === null ? "n/a" : `${(rate.rate * 100).toFixed(1)}%`;
    const counts = `${rate.count}/${rate.of}`;
    if (rate.of > 0 && !table.includes(`${text} (${counts})`))
      wrong.push(`table lacks ${name} ${text} (${counts})`);
    if (rate.of > 0 && !html.includes(text)) wrong.push(`HTML lacks ${name} ${text}`);
  }
  // Without selection both show the solved tasks the pass rule counts, and what each cost.
  const solved = r.solved;
  if (solved?.decidedBy === "pass_rule" && solved.tasks > 0) {
    const rate = `${((solved.solved / solved.tasks) * 100).toFixed(1)}%`;
    if (
      !new RegExp(
        `solved \\(pass rule\\)\\s+│\\s+${rate} \\(${solved.solved}/${solved.tasks}\\)`,
      ).test(table)
    )
      wrong.push(`table lacks solved ${rate} (${solved.solved}/${solved.tasks})`);
    const card = `<div class="value">${rate}</div><div class="detail">${solved.solved} of ${solved.tasks}</div>`;
    if (!html.includes(`data-metric="solved"`) || !html.includes(card))
      wrong.push(`HTML lacks the solved card ${rate} (${solved.solved} of ${solved.tasks})`);
    if (r.cost !== null && !html.includes(`<th>per solved task (${r.cost.solvedTasks})</th>`))
      wrong.push("HTML lacks the cost per solved task");
  }
  return wrong;
}

describe("every report figure equals its recomputation from `assay export`", () => {
  let db: TestStore;
  let next = 0;
  beforeAll(async () => {
    db = await openTestStore("pglite");
    // The views price runs by the version in force when they started: this one, for all.
    await importPrices(driverOf(db.store), prices, {
      effectiveFrom: new Date("2000-01-01T00:00:00Z"),
      source: "test",
    });
  });
  afterAll(() => db?.dispose());

  it(`over ${RUNS} generated runs (seed ${SEED}), each against a baseline run`, async () => {
    await fc.assert(
      fc.asyncProperty(drawnRun, drawnRun, async (run, baseline) => {
        next += 1;
        const runId = `run-${next}`;
        const baselineId = `base-${next}`;
        const name = `series-${next}`;
        await storeDrawnRun(db.store, baselineId, baseline, name);
        await storeDrawnRun(db.store, runId, run, name);
        const { summary, bundle } = await runReportBundle(db.store, runId, {
          prices,
          compareRunId: baselineId,
          by: "metadata.kind",
        });
        const exported = await exportRun(db.store, runId);
        const comparison = new Figures();
        checkComparison(
          comparison,
          bundle,
          { run, exported },
          { run: baseline, exported: await exportRun(db.store, baselineId) },
        );
        const wrong = [
          ...checkRun(bundle, exported, run),
          ...comparison.wrong,
          ...checkRendering(bundle, summary),
          ...(await checkViews(db.store, runId, exported, run)),
        ];
        expect(wrong, `figures of ${runId} that differ from their recomputation`).toEqual([]);
      }),
      { seed: SEED, numRuns: RUNS, endOnFailure: true },
    );
  }, 600_000);
});

/** A run none of whose results came from a model (verifier or judge) spent nothing on one. */
function idleRoles(exported: ExportedRun): "verifier"[] {
  return exported.scores.some((s) => s.scorer === VERIFIER || s.scorer === JUDGE)
    ? []
    : ["verifier"];
}
