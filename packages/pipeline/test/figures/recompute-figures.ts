import type { ExportRow, PriceTable } from "@assay/core";
import type { ExportedRun, SampleLine, UsageLine } from "./exported-run.js";

// Every report figure again, from the exported rows alone, written from the definitions in
// docs/figures.md and not from the report's queries: plain loops over plain rows, AUROC by
// comparing every pair, a pick by scanning each task. Where the report and this file
// disagree, one of them misreads the definition.

export interface RecomputeOptions {
  verifier: string;
  /** The pairwise judge's scorer key, when selection ran a judged tournament. */
  judge: string | null;
  check: string | null;
  threshold: number;
  prices: PriceTable;
}

export interface Counted {
  count: number;
  of: number;
}

interface Candidate {
  sample: SampleLine;
  score: number | null;
  level: number | null;
  correct: boolean | null;
}

/** A pair the judge scored in both orders: P(a better) with a first, and with b first. */
export interface JudgedPair {
  a: number;
  b: number;
  aFirst: number;
  bFirst: number;
}

export interface TaskFigures {
  taskId: string;
  candidates: Candidate[];
  /** Best-of-N on the verifier's score. */
  pointwise: Candidate | null;
  judged: JudgedPair[];
  /** The task's pick: the judge's, where it compared a pair, else best-of-N's. */
  pick: Candidate | null;
  tie: boolean;
  discreteTie: boolean | null;
  first: boolean | null;
  picked: boolean | null;
  oracle: boolean | null;
  counted: boolean;
}

const INPUT_LENGTH_EDGES = [0, 512, 1024, 2048, 4096, 8192, 16384, 32768, 65536, 131072];

export function tasksOf(run: ExportedRun, options: RecomputeOptions): TaskFigures[] {
  const scoresOf = new Map<string, ExportRow[]>();
  for (const row of run.scores) {
    const list = scoresOf.get(row.sample_id) ?? [];
    list.push(row);
    scoresOf.set(row.sample_id, list);
  }
  const byTask = new Map<string, Candidate[]>();
  for (const sample of run.samples) {
    const rows = scoresOf.get(sample.sample_id) ?? [];
    const verifier = rows.filter((r) => r.scorer === options.verifier);
    const check = rows.filter((r) => r.scorer === options.check);
    const candidate: Candidate = {
      sample,
      score:
        verifier.length > 0 && verifier.every((r) => r.status === "scored")
          ? mean(verifier.map((r) => r.value as number))
          : null,
      level: verifier.length === 1 ? argmaxLevel(verifier[0]?.detail) : null,
      correct:
        sample.label ??
        (check.length > 0 && check.every((r) => r.status === "scored")
          ? mean(check.map((r) => r.value as number)) >= options.threshold
          : null),
    };
    const list = byTask.get(sample.task_id) ?? [];
    list.push(candidate);
    byTask.set(sample.task_id, list);
  }
  const judgments = judgmentsOf(run.scores, options.judge);
  const stored = new Map(run.selections.map((s) => [s.task_id, s]));
  return [...byTask].map(([taskId, candidates]) => {
    candidates.sort(
      (a, b) =>
        a.sample.candidate_index - b.sample.candidate_index || a.sample.line - b.sample.line,
    );
    const scored = candidates.filter((c) => c.score !== null);
    let pointwise: Candidate | null = null;
    for (const c of scored) {
      if (pointwise === null || (c.score as number) > (pointwise.score as number)) pointwise = c;
    }
    const judged = judgedPairs(judgments.get(taskId));
    // Bradley–Terry strengths are not refitted here: where the judge compared a pair, the
    // stored pick is taken, and checked to be a candidate the judge compared.
    const judgePick = stored.get(taskId)?.selected_sample_id ?? null;
    const judgeDecides = judged.length > 0;
    const pick = judgeDecides
      ? (candidates.find((c) => c.sample.sample_id === judgePick) ?? null)
      : pointwise;
    const storedTie = stored.get(taskId)?.tie === true;
    const atTop = judgeDecides
      ? storedTie
        ? 2
        : 1
      : scored.filter((c) => c.score === pointwise?.score).length;
    const levels = scored.map((c) => c.level);
    const topLevel = Math.max(...levels.map((l) => l ?? Number.NEGATIVE_INFINITY));
    const discreteTie =
      scored.length === 0 || levels.some((l) => l === null)
        ? null
        : levels.filter((l) => l === topLevel).length > 1;
    const first = candidates[0]?.correct ?? null;
    const picked = pick === null ? false : pick.correct;
    const oracle = candidates.some((c) => c.correct === true)
      ? true
      : candidates.every((c) => c.correct === false)
        ? false
        : null;
    return {
      taskId,
      candidates,
      pointwise,
      judged,
      pick,
      tie: atTop > 1,
      discreteTie,
      first,
      picked,
      oracle,
      counted: first !== null && picked !== null && oracle !== null,
    };
  });
}

/** The judge's stored answers by task: P(first better than second), null when unscored. */
function judgmentsOf(scores: readonly ExportRow[], judge: string | null) {
  const byTask = new Map<string, Map<string, number | null>>();
  if (judge === null) return byTask;
  for (const row of scores) {
    if (row.scorer !== judge) continue;
    const match = /^(.*)#pair-(\d+)-(\d+)$/.exec(row.sample_id);
    if (match === null) continue;
    const [, task, first, second] = match as unknown as [string, string, string, string];
    const pairs = byTask.get(task) ?? new Map<string, number | null>();
    pairs.set(`${first}>${second}`, row.status === "scored" ? (row.value as number) : null);
    byTask.set(task, pairs);
  }
  return byTask;
}

/** Pairs the judge scored in both orders (a < b). */
function judgedPairs(judgments: Map<string, number | null> | undefined): JudgedPair[] {
  const pairs: JudgedPair[] = [];
  for (const [order, aFirst] of judgments ?? []) {
    const [a, b] = order.split(">").map(Number) as [number, number];
    const reverse = judgments?.get(`${b}>${a}`);
    if (a < b && aFirst !== null && reverse !== null && reverse !== undefined) {
      pairs.push({ a, b, aFirst, bFirst: 1 - reverse });
    }
  }
  return pairs;
}

/** The discrete judge's level: each distribution's first argmax on [0, 1], averaged. */
function argmaxLevel(detail: unknown): number | null {
  const levels: number[] = [];
  const criteria = (detail as { criteria?: unknown } | null)?.criteria;
  for (const criterion of Array.isArray(criteria) ? criteria : []) {
    for (const variant of (criterion as { variants?: unknown[] }).variants ?? []) {
      const d = (variant as { distribution?: number[] }).distribution;
      if (!Array.isArray(d) || d.length < 2) continue;
      levels.push(d.indexOf(Math.max(...d)) / (d.length - 1));
    }
  }
  return levels.length === 0 ? null : mean(levels);
}

export function accuracyOf(tasks: readonly TaskFigures[]) {
  const counted = tasks.filter((t) => t.counted);
  const picked = tasks.filter((t) => t.pick !== null);
  const withLevels = picked.filter((t) => t.discreteTie !== null);
  return {
    tasks: tasks.length,
    selectedTasks: picked.length,
    unselected: tasks.length - picked.length,
    pass1: counted.filter((t) => t.first === true).length,
    selected: counted.filter((t) => t.picked === true).length,
    oracle: counted.filter((t) => t.oracle === true).length,
    counted: counted.length,
    ties: { count: picked.filter((t) => t.tie).length, of: picked.length },
    discreteTies: {
      count: withLevels.filter((t) => t.discreteTie === true).length,
      of: withLevels.length,
    },
  };
}

export function truncationOf(run: ExportedRun) {
  const bucketOf = (tokens: number) =>
    INPUT_LENGTH_EDGES.filter((edge) => tokens >= edge).length - 1;
  const buckets = new Map<number, { calls: number; cut: number; refused: number }>();
  for (const row of run.truncations) {
    const bucket = buckets.get(bucketOf(row.original_tokens)) ?? { calls: 0, cut: 0, refused: 0 };
    bucket.calls += 1;
    if (row.kept_tokens === 0) bucket.refused += 1;
    else if (row.dropped_tokens > 0) bucket.cut += 1;
    buckets.set(bucketOf(row.original_tokens), bucket);
  }
  const all = [...buckets.values()];
  return {
    calls: all.reduce((s, b) => s + b.calls, 0),
    cut: all.reduce((s, b) => s + b.cut, 0),
    refused: all.reduce((s, b) => s + b.refused, 0),
    byInputLength: [...buckets]
      .sort(([a], [b]) => a - b)
      .map(([i, b]) => ({ fromTokens: INPUT_LENGTH_EDGES[i] as number, ...b })),
  };
}

export function unscoredOf(scores: readonly ExportRow[]) {
  const byReason = new Map<string, number>();
  for (const row of scores) {
    if (row.status !== "unscored") continue;
    byReason.set(row.reason ?? "", (byReason.get(row.reason ?? "") ?? 0) + 1);
  }
  return { results: scores.length, byReason: Object.fromEntries(byReason) };
}

export function histogramsOf(scores: readonly ExportRow[]) {
  const histograms = new Map<string, number[]>();
  for (const row of scores) {
    if (row.status !== "scored") continue;
    const counts = histograms.get(row.scorer) ?? Array.from({ length: 10 }, () => 0);
    const bin = Math.min(9, Math.floor((row.value as number) * 10));
    counts[bin] = (counts[bin] as number) + 1;
    histograms.set(row.scorer, counts);
  }
  return Object.fromEntries(histograms);
}

/**
 * Each scorer's mean over its scored values and the 95% interval docs/figures.md defines,
 * from the values themselves: Wilson's interval when every value is 0 or 1, else the mean
 * ± z·s/√n (sample standard deviation) clipped to [0, 1].
 */
export function scorerMeansOf(scores: readonly ExportRow[]) {
  const byScorer = new Map<string, number[]>();
  for (const row of scores) {
    if (row.status !== "scored") continue;
    byScorer.set(row.scorer, [...(byScorer.get(row.scorer) ?? []), row.value as number]);
  }
  const z = 1.959963984540054;
  return [...byScorer]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([scorer, values]) => {
      const n = values.length;
      const m = mean(values);
      const binary = values.every((v) => v === 0 || v === 1);
      let low: number;
      let high: number;
      if (binary) {
        const centre = (m + (z * z) / (2 * n)) / (1 + (z * z) / n);
        const half = (z / (1 + (z * z) / n)) * Math.sqrt((m * (1 - m)) / n + (z * z) / (4 * n * n));
        [low, high] = [centre - half, centre + half];
      } else {
        const sd = n > 1 ? Math.sqrt(values.reduce((a, v) => a + (v - m) ** 2, 0) / (n - 1)) : 0;
        [low, high] = [m - (z * sd) / Math.sqrt(n), m + (z * sd) / Math.sqrt(n)];
      }
      return {
        scorer,
        scored: n,
        mean: m,
        low: Math.max(0, low),
        high: Math.min(1, high),
        passes: binary ? values.filter((v) => v === 1).length : null,
      };
    });
}

/**
 * Cost of a set of usage rows: null for a role with no rows or any row it cannot price; a
 * role that did no work there (`idle`: no verifier result among these samples) costs 0.
 */
export function costOf(
  usage: readonly UsageLine[],
  prices: PriceTable,
  idle: UsageLine["role"][] = [],
) {
  const roleCost = (role: UsageLine["role"]) => {
    const rows = usage.filter((u) => u.role === role);
    if (rows.length === 0) return idle.includes(role) ? 0 : null;
    let sum = 0;
    for (const row of rows) {
      const cost = usageLineCost(row, prices);
      if (cost === null) return null;
      sum += cost;
    }
    return sum;
  };
  const generation = roleCost("generator");
  const verification = roleCost("verifier");
  const total = generation === null || verification === null ? null : generation + verification;
  return { generation, verification, total };
}

/** One exported usage line priced: null when its model has no price it can be priced by. */
function usageLineCost(row: UsageLine, prices: PriceTable): number | null {
  const price = prices.models[row.model];
  if (price === undefined) return null;
  if (price.gpu_hour !== undefined && row.compute_ms === null) return null;
  const cachedPrice = price.cached_input_per_million ?? price.input_per_million ?? 0;
  const cacheWritePrice = price.cache_write_per_million ?? price.input_per_million ?? 0;
  const hourWritePrice = price.cache_write_1h_per_million ?? cacheWritePrice;
  const hourWrites = row.cache_write_1h_tokens;
  return (
    (row.input_tokens * (price.input_per_million ?? 0) +
      row.cached_input_tokens * cachedPrice +
      (row.cache_write_tokens - hourWrites) * cacheWritePrice +
      hourWrites * hourWritePrice +
      row.output_tokens * (price.output_per_million ?? 0)) /
      1e6 +
    ((row.compute_ms ?? 0) / 3.6e6) * (price.gpu_hour ?? 0)
  );
}

/**
 * Tokens and cost per (role, model), summed over the exported usage lines: what the report's
 * cost by model shows. A model's cost is null when it has no price.
 */
export function costByModelOf(usage: readonly UsageLine[], prices: PriceTable) {
  const byModel = new Map<
    string,
    { role: string; model: string; tokens: number[]; cost: number | null }
  >();
  for (const row of usage) {
    const key = `${row.role}\u0000${row.model}`;
    const entry = byModel.get(key) ?? {
      role: row.role,
      model: row.model,
      tokens: [0, 0, 0, 0, 0],
      cost: 0,
    };
    const tokens = [
      row.input_tokens,
      row.cached_input_tokens,
      row.cache_write_tokens - row.cache_write_1h_tokens,
      row.cache_write_1h_tokens,
      row.output_tokens,
    ];
    entry.tokens = entry.tokens.map((sum, i) => sum + (tokens[i] as number));
    const cost = usageLineCost(row, prices);
    entry.cost = entry.cost === null || cost === null ? null : entry.cost + cost;
    byModel.set(key, entry);
  }
  return [...byModel.values()].sort(
    (a, b) => a.role.localeCompare(b.role) || (a.model < b.model ? -1 : a.model > b.model ? 1 : 0),
  );
}

/**
 * Solved tasks by generator model: each deciding sample (a solved task's pick, else its
 * first candidate) counts for the model of its generator usage line, if it has one.
 */
export function solvedByModelOf(
  usage: readonly UsageLine[],
  decidingSamples: Iterable<string>,
): Map<string, number> {
  const modelOf = new Map(
    usage.filter((row) => row.role === "generator").map((row) => [row.sample_id, row.model]),
  );
  const solved = new Map<string, number>();
  for (const sampleId of decidingSamples) {
    const model = modelOf.get(sampleId);
    if (model !== undefined) solved.set(model, (solved.get(model) ?? 0) + 1);
  }
  return solved;
}

export function verifierTokensOf(usage: readonly UsageLine[]) {
  const rows = usage.filter((u) => u.role === "verifier");
  const sumOf = (column: string) =>
    rows.some((u) => u[column] === null) ? null : rows.reduce((s, u) => s + Number(u[column]), 0);
  return {
    computed: rows.reduce((s, u) => s + u.input_tokens, 0),
    cached: rows.reduce((s, u) => s + u.cached_input_tokens, 0),
    prompts: sumOf("prompts"),
    passes: sumOf("forward_passes"),
  };
}

/** AUROC by comparing every positive with every negative (ties count one half). */
export function aurocByPairs(points: readonly { score: number; label: boolean }[]): number | null {
  const positives = points.filter((p) => p.label);
  const negatives = points.filter((p) => !p.label);
  if (positives.length === 0 || negatives.length === 0) return null;
  let wins = 0;
  for (const p of positives) {
    for (const n of negatives) wins += p.score > n.score ? 1 : p.score === n.score ? 0.5 : 0;
  }
  return wins / (positives.length * negatives.length);
}

export function calibrationOf(points: readonly { score: number; label: boolean }[]) {
  const bins = Array.from({ length: 10 }, () => ({ count: 0, score: 0, positives: 0 }));
  for (const p of points) {
    const bin = bins[Math.min(9, Math.floor(p.score * 10))] as (typeof bins)[number];
    bin.count += 1;
    bin.score += p.score;
    bin.positives += p.label ? 1 : 0;
  }
  const n = points.length;
  return {
    count: n,
    positives: points.filter((p) => p.label).length,
    auroc: aurocByPairs(points),
    accuracy: n === 0 ? null : points.filter((p) => p.score >= 0.5 === p.label).length / n,
    brier: n === 0 ? null : points.reduce((s, p) => s + (p.score - (p.label ? 1 : 0)) ** 2, 0) / n,
    ece:
      n === 0
        ? null
        : bins.reduce((s, b) => s + (b.count === 0 ? 0 : Math.abs(b.score - b.positives)), 0) / n,
    binCounts: bins.map((b) => b.count),
  };
}

/** First run of at least `fallSteps` falls (each ≥ minFall) in each curve, as listed. */
export function earlyStopsOf(
  scores: readonly ExportRow[],
  tasks: Map<string, string>,
  fallSteps = 3,
  minFall = 0.01,
) {
  const found: {
    sampleId: string;
    taskId: string;
    scorer: string;
    fromStep: number;
    falls: number;
    drop: number;
  }[] = [];
  for (const row of scores) {
    const progress = (row.detail as { progress?: (number | null)[] } | null)?.progress;
    if (!Array.isArray(progress)) continue;
    let streakStart = -1;
    let falls = 0;
    for (let step = 1; step <= progress.length; step += 1) {
      const before = progress[step - 1];
      const value = progress[step];
      const fell =
        step < progress.length &&
        typeof before === "number" &&
        typeof value === "number" &&
        value < before &&
        before - value >= minFall - 1e-9;
      if (fell) {
        if (falls === 0) streakStart = step - 1;
        falls += 1;
        continue;
      }
      if (falls >= fallSteps) break;
      falls = 0;
    }
    if (falls < fallSteps) continue;
    const from = progress[streakStart] as number;
    const to = progress[streakStart + falls] as number;
    found.push({
      sampleId: row.sample_id,
      taskId: tasks.get(row.sample_id) ?? row.sample_id,
      scorer: row.scorer,
      fromStep: streakStart,
      falls,
      drop: from - to,
    });
  }
  return found;
}

export function mean(values: readonly number[]): number {
  return values.reduce((a, b) => a + b, 0) / values.length;
}
