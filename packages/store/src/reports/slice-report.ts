import {
  costOfUsage,
  type PriceTable,
  perUnit,
  rateOf,
  type SliceCost,
  type SliceFigures,
  type SliceReport,
  type UsageRole,
  type UsageTotals,
} from "@assay/core";
import { candidateOrder } from "../queries/candidate-order.js";
import type { SqlRunner } from "../sql-runner.js";
import { num, numOrNull } from "./group-by-run.js";
import { PASS_THRESHOLD } from "./pass-rule.js";
import { metadataPath } from "./report-options.js";
import { rolledUpSlices } from "./rollups/slice-rollups.js";
import { type RunTables, runTables } from "./run-tables.js";
import { CUT } from "./truncation-stats.js";

// $1 run id, $2 the metadata path as text[] (`metadata.a.b` → {a,b}). `#>>` reads the value
// as text; a sample without the field lands in the NULL slice.
const SLICE = "metadata #>> $2::text[]";

// A task belongs to the slice of its first candidate (lowest index, then line), so each task
// counts once.
const TASKS = `
  WITH task_slice AS (
    SELECT DISTINCT ON (task_id) task_id, ${SLICE} AS slice
    FROM samples WHERE run_id = $1 ORDER BY ${candidateOrder()}
  ), s AS (
    SELECT ts.slice, sel.task_id IS NOT NULL AS has_selection, sel.selected_index, sel.tie,
           sel.first_correct, sel.any_correct,
           CASE WHEN sel.selected_index IS NULL THEN false ELSE sel.selected_correct END AS picked_correct
    FROM task_slice ts
    LEFT JOIN selections sel ON sel.run_id = $1 AND sel.task_id = ts.task_id
  ), c AS (
    SELECT *, (has_selection AND first_correct IS NOT NULL AND picked_correct IS NOT NULL
               AND any_correct IS NOT NULL) AS counted
    FROM s
  )
  SELECT slice, count(*) AS tasks,
         count(selected_index) AS selected_tasks,
         count(*) FILTER (WHERE has_selection AND selected_index IS NULL) AS unselected,
         count(*) FILTER (WHERE counted) AS counted,
         count(*) FILTER (WHERE counted AND first_correct) AS pass1,
         count(*) FILTER (WHERE counted AND picked_correct) AS selected,
         count(*) FILTER (WHERE counted AND any_correct) AS oracle,
         count(*) FILTER (WHERE tie) AS ties
  FROM c GROUP BY slice`;

const SAMPLES = `
  SELECT ${SLICE} AS slice, count(*) AS samples FROM samples WHERE run_id = $1 GROUP BY 1`;

const SCORES = `
  SELECT sm.${SLICE} AS slice, s.scorer, count(*) AS results,
         count(*) FILTER (WHERE s.status = 'scored') AS scored,
         avg(s.value) FILTER (WHERE s.status = 'scored') AS mean
  FROM scores s JOIN samples sm ON sm.run_id = s.run_id AND sm.sample_id = s.sample_id
  WHERE s.run_id = $1 GROUP BY 1, 2 ORDER BY 2`;

const TRUNCATIONS = `
  SELECT sm.${SLICE} AS slice, count(*) AS calls,
         count(${CUT}) AS cut
  FROM truncations t JOIN samples sm ON sm.run_id = t.run_id AND sm.sample_id = t.sample_id
  WHERE t.run_id = $1 GROUP BY 1`;

const USAGE = `
  SELECT sm.${SLICE} AS slice, u.role, u.model,
         sum(u.input_tokens) AS input_tokens, sum(u.cached_input_tokens) AS cached_input_tokens,
         sum(u.cache_write_tokens) AS cache_write_tokens,
         sum(u.cache_write_1h_tokens) AS cache_write_1h_tokens,
         sum(u.output_tokens) AS output_tokens, sum(u.compute_ms) AS compute_ms, count(*) AS rows
  FROM usage u JOIN samples sm ON sm.run_id = u.run_id AND sm.sample_id = u.sample_id
  WHERE u.run_id = $1 GROUP BY 1, 2, 3 ORDER BY 2, 3`;

// Results of the run's verifier scorers (those that wrote verifier usage anywhere in the
// run), per slice: a slice with none was never verified, so its verification costs 0.
const VERIFIED = `
  SELECT sm.${SLICE} AS slice, count(*) AS verified
  FROM scores s JOIN samples sm ON sm.run_id = s.run_id AND sm.sample_id = s.sample_id
  WHERE s.run_id = $1
    AND s.scorer IN (SELECT DISTINCT scorer FROM usage WHERE run_id = $1 AND role = 'verifier')
  GROUP BY 1`;

// Solved tasks per slice of a run without selection, as solved-stats.ts counts the run's:
// a task is solved when its first candidate has a result from the deciding scorer and every
// such result passes the run's rule. No rows for a run with a selection section.
// On the run's own partitions (run-tables.ts), as solved-stats.ts reads them.
const solvedByRuleSql = (t: RunTables) => `
  WITH first AS (
    SELECT DISTINCT ON (x.task_id) x.run_id, x.sample_id, x.${SLICE} AS slice
    FROM ${t.samples} x ORDER BY ${candidateOrder("x")}
  ), judged AS (
    SELECT f.slice,
           bool_and(s.status = 'scored' AND s.value >= ${PASS_THRESHOLD}) AS passes
    FROM first f
    JOIN ${t.scores} s ON s.run_id = f.run_id AND s.sample_id = f.sample_id
    JOIN runs r ON r.id = $1 AND (r.solved_by IS NULL OR s.scorer = r.solved_by)
    GROUP BY f.slice, f.sample_id
  )
  SELECT j.slice, count(*) FILTER (WHERE j.passes) AS solved
  FROM runs r LEFT JOIN judged j ON true
  WHERE r.id = $1 AND NOT r.has_selection
  GROUP BY j.slice`;

export type Row = Record<string, unknown> & { slice: string | null };

/** The slice report's query rows, as the raw queries return them (or as rolled up). */
export interface SliceRows {
  tasks: Row[];
  samples: Row[];
  scores: Row[];
  truncations: Row[];
  usage: Row[];
  verified: Row[];
  solvedByRule: Row[];
}

export const SLICE_QUERIES = [
  "tasks",
  "samples",
  "scores",
  "truncations",
  "usage",
  "verified",
  "solvedByRule",
] as const satisfies readonly (keyof SliceRows)[];

export interface SliceOptions {
  /** Prices usage per slice; without it each slice's cost is null. */
  prices?: PriceTable;
}

/**
 * Every headline figure of a run, one row per value of `by` (`metadata.<key>`): from the
 * run's slice rollups when the spec declares the field (`fields.metadata`) and the run was
 * rolled up with them, else from its raw rows, with the same figures.
 */
export async function sliceReport(
  runner: SqlRunner,
  runId: string,
  by: string,
  options: SliceOptions = {},
): Promise<SliceReport> {
  const path = metadataPath(by);
  const rolled = await rolledUpSlices(runner, runId, path);
  if ("rows" in rolled) return sliceReportOf(by, rolled.rows, options);
  const report = sliceReportOf(by, await rawSliceRows(runner, runId, path), options);
  return { ...report, fromRawRows: rolled.reason };
}

/** The slice report's rows from the run's raw rows (`path`: the metadata key's path). */
export async function rawSliceRows(
  runner: SqlRunner,
  runId: string,
  path: readonly string[],
): Promise<SliceRows> {
  const params = [runId, path];
  const tables = await runTables(runner, runId);
  const [tasks, samples, scores, truncations, usage, verified, solvedByRule] = await Promise.all(
    [TASKS, SAMPLES, SCORES, TRUNCATIONS, USAGE, VERIFIED, solvedByRuleSql(tables)].map(
      async (sql) => (await runner.query<Row>(sql, params)).rows,
    ),
  );
  return {
    tasks: tasks ?? [],
    samples: samples ?? [],
    scores: scores ?? [],
    truncations: truncations ?? [],
    usage: usage ?? [],
    verified: verified ?? [],
    solvedByRule: solvedByRule ?? [],
  };
}

/** The slice report of query rows, however they were read. */
export function sliceReportOf(
  by: string,
  rows: SliceRows,
  options: SliceOptions = {},
): SliceReport {
  const slices = new Map<string | null, SliceFigures>();
  const slice = (value: string | null): SliceFigures => {
    let figures = slices.get(value);
    if (figures === undefined) {
      figures = emptySlice(value);
      slices.set(value, figures);
    }
    return figures;
  };
  for (const r of rows.tasks) {
    const counted = num(r.counted);
    Object.assign(slice(r.slice), {
      tasks: num(r.tasks),
      unselected: num(r.unselected),
      pass1: rateOf(num(r.pass1), counted),
      selected: rateOf(num(r.selected), counted),
      oracle: rateOf(num(r.oracle), counted),
      tie: rateOf(num(r.ties), num(r.selected_tasks)),
    });
  }
  for (const r of rows.samples) slice(r.slice).samples = num(r.samples);
  for (const r of rows.scores) {
    const figures = slice(r.slice);
    const results = num(r.results);
    const scored = num(r.scored);
    figures.scorers.push({ scorer: String(r.scorer), results, scored, mean: numOrNull(r.mean) });
    const unscored = figures.unscored.count + results - scored;
    figures.unscored = rateOf(unscored, figures.unscored.of + results);
  }
  for (const r of rows.truncations) {
    slice(r.slice).truncation = rateOf(num(r.cut), num(r.calls));
  }
  // A row (even with a null slice and no count) means the run has no selection section.
  const byRule = rows.solvedByRule.length > 0;
  for (const figures of slices.values()) {
    figures.solved = byRule
      ? { decidedBy: "pass_rule", solved: 0 }
      : { decidedBy: "selection", solved: figures.selected.count };
  }
  if (byRule) {
    for (const r of rows.solvedByRule) {
      const figures = slices.get(r.slice);
      if (figures !== undefined) figures.solved.solved = num(r.solved);
    }
  }
  if (options.prices !== undefined) {
    const usageBySlice = groupUsage(rows.usage);
    const verifiedSlices = new Set(rows.verified.map((r) => r.slice));
    for (const figures of slices.values()) {
      const idle: UsageRole[] = verifiedSlices.has(figures.value) ? [] : ["verifier"];
      figures.cost = costOf(usageBySlice.get(figures.value) ?? [], figures, options.prices, idle);
    }
  }
  return { by, slices: [...slices.values()].sort(byValue) };
}

function emptySlice(value: string | null): SliceFigures {
  return {
    value,
    tasks: 0,
    samples: 0,
    pass1: rateOf(0, 0),
    selected: rateOf(0, 0),
    oracle: rateOf(0, 0),
    unselected: 0,
    tie: rateOf(0, 0),
    truncation: rateOf(0, 0),
    unscored: rateOf(0, 0),
    scorers: [],
    solved: { decidedBy: "selection", solved: 0 },
    cost: null,
  };
}

function groupUsage(rows: readonly Row[]): Map<string | null, UsageTotals[]> {
  const bySlice = new Map<string | null, UsageTotals[]>();
  for (const r of rows) {
    const totals: UsageTotals = {
      role: r.role as UsageRole,
      model: String(r.model),
      inputTokens: num(r.input_tokens),
      cachedInputTokens: num(r.cached_input_tokens),
      cacheWriteTokens: num(r.cache_write_tokens),
      cacheWrite1hTokens: num(r.cache_write_1h_tokens),
      outputTokens: num(r.output_tokens),
      computeMs: numOrNull(r.compute_ms),
      rows: num(r.rows),
    };
    bySlice.set(r.slice, [...(bySlice.get(r.slice) ?? []), totals]);
  }
  return bySlice;
}

/** As the run's cost: generation plus verification over the slice's solved tasks (`solved`). */
function costOf(
  usage: UsageTotals[],
  figures: SliceFigures,
  prices: PriceTable,
  idle: UsageRole[],
): SliceCost {
  const cost = costOfUsage(usage, prices, { idle });
  return {
    currency: cost.currency,
    total: cost.total,
    solvedTasks: figures.solved.solved,
    perSolvedTask: perUnit(cost.total, figures.solved.solved),
    perSample: perUnit(cost.total, figures.samples),
    warnings: cost.warnings,
  };
}

/** Values in text order; samples without the field last. */
function byValue(a: SliceFigures, b: SliceFigures): number {
  if (a.value === b.value) return 0;
  if (a.value === null) return 1;
  if (b.value === null) return -1;
  return a.value.localeCompare(b.value);
}
