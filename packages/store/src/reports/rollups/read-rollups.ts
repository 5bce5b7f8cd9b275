import type {
  PairwiseReport,
  ScorerCalibration,
  ScorerMoments,
  SelfPreference,
  VerifierEffortRow,
} from "@assay/core";
import type { SqlRunner } from "../../sql-runner.js";
import { num } from "../group-by-run.js";
import type { RunFigures } from "../run-figures.js";
import { scoreStatsOf } from "../score-stats.js";
import { selectionStatsOf } from "../selection-stats.js";
import { truncationReportOf } from "../truncation-stats.js";
import { type UsageRow, usageTotalsOf } from "../usage-totals.js";

// Primary-key range reads: a few rows per run, whatever the size of the run.
const RUNS = `
  SELECT run_id, samples, tasks, results, selected_tasks, unselected, methods, counted, pass1,
         selected, oracle, ties, discrete_ties, discrete_of, truncation_calls, truncation_cut,
         truncation_refused, solved, r.has_selection
  FROM run_rollups JOIN runs r ON r.id = run_id WHERE run_id = ANY($1::text[])`;
const PASSES = `
  SELECT run_id, scorer, scored, unscored, passed, threshold
  FROM pass_rollups WHERE run_id = ANY($1::text[])`;
const UNSCORED = `
  SELECT run_id, reason, count FROM unscored_rollups WHERE run_id = ANY($1::text[])`;
const HISTOGRAMS = `
  SELECT run_id, scorer, scored, counts FROM histogram_rollups WHERE run_id = ANY($1::text[])`;
// The order the raw query returns usage in.
const USAGE = `
  SELECT run_id, role, model, input_tokens, cached_input_tokens, cache_write_tokens,
         cache_write_1h_tokens, output_tokens,
         compute_ms, rows, solved
  FROM usage_rollups WHERE run_id = ANY($1::text[]) ORDER BY run_id, role, model`;
const SUMMARIES = `
  SELECT run_id, kind, summary FROM summary_rollups WHERE run_id = ANY($1::text[])
  ORDER BY run_id, kind, position`;

type RunRow = Record<string, unknown> & {
  run_id: string;
  methods: string[];
  truncation_calls: unknown[];
  truncation_cut: unknown[];
  truncation_refused: unknown[];
  solved: unknown;
  has_selection: boolean;
};

/** Figures of the runs that have rollups; runs without them are left out of the map. */
export async function readRollups(
  runner: SqlRunner,
  runIds: readonly string[],
): Promise<Map<string, RunFigures>> {
  const byRun = new Map<string, RunFigures>();
  if (runIds.length === 0) return byRun;
  const params = [runIds];
  const [runs, unscored, histograms, usage, summaries, passes] = await Promise.all([
    runner.query<RunRow>(RUNS, params),
    runner.query<{ run_id: string; reason: string; count: unknown }>(UNSCORED, params),
    runner.query<{ run_id: string; scorer: string; scored: unknown; counts: unknown[] }>(
      HISTOGRAMS,
      params,
    ),
    runner.query<UsageRow>(USAGE, params),
    runner.query<{ run_id: string; kind: string; summary: unknown }>(SUMMARIES, params),
    runner.query<Record<string, unknown> & { run_id: string; scorer: string }>(PASSES, params),
  ]);
  for (const run of runs.rows) {
    const id = run.run_id;
    const summariesOf = <T>(kind: string): T[] =>
      summaries.rows.filter((r) => r.run_id === id && r.kind === kind).map((r) => r.summary as T);
    const selfPreference = summariesOf<SelfPreference>("self_preference");
    // Rolled up before the gap had an interval, the check warned on noise: such a run is
    // reported from its raw rows (as a run without rollups) until they are written again.
    if (!selfPreference.every((check) => "low" in check)) continue;
    const histogramRows = histograms.rows.filter((r) => r.run_id === id);
    const moments = summariesOf<ScorerMoments>("scorer_moments");
    // Rolled up before scorer means were kept (every scorer with a histogram has them):
    // reported from raw rows until the rollup is written again.
    if (moments.length !== histogramRows.length) continue;
    // Rolled up before solved tasks and passes were kept: reported from raw rows until then.
    if (run.solved === null) continue;
    byRun.set(id, {
      counts: { samples: num(run.samples), tasks: num(run.tasks) },
      selection: selectionStatsOf(run),
      usage: usage.rows.filter((r) => r.run_id === id).map(usageTotalsOf),
      truncation: truncationReportOf(
        run.truncation_calls.map(num),
        run.truncation_cut.map(num),
        run.truncation_refused.map(num),
      ),
      scores: scoreStatsOf(
        num(run.results),
        unscored.rows
          .filter((r) => r.run_id === id)
          .map((r) => ({ reason: r.reason, count: num(r.count) })),
        histogramRows.map((r) => ({
          scorer: r.scorer,
          scored: num(r.scored),
          counts: r.counts.map(num),
        })),
        moments,
        passes.rows
          .filter((r) => r.run_id === id)
          .map((r) => ({
            scorer: r.scorer,
            threshold: num(r.threshold),
            scored: num(r.scored),
            unscored: num(r.unscored),
            passed: num(r.passed),
          })),
      ),
      calibration: summariesOf<ScorerCalibration>("calibration"),
      selfPreference,
      pairwise: summariesOf<PairwiseReport>("pairwise")[0] ?? null,
      verifierEffort: summariesOf<StoredEffortRow>("verifier_effort").map(effortRowOf),
      solved: {
        decidedBy: run.has_selection ? "selection" : "pass_rule",
        solved: num(run.solved),
      },
    });
  }
  return byRun;
}

/** A verifier effort row as rolled up, perhaps before prompts were counted. */
type StoredEffortRow = Omit<VerifierEffortRow, "prompts"> & { prompts?: number | null };

/**
 * A rollup written before prompts were counted has no `prompts`, and its `forwardPasses`
 * counted truncation rows, not passes: both are unknown.
 */
function effortRowOf(row: StoredEffortRow): VerifierEffortRow {
  return "prompts" in row
    ? { ...row, prompts: row.prompts ?? null }
    : { ...row, prompts: null, forwardPasses: null };
}

/** Whether the run's report figures are rolled up (else reports read its raw rows). */
export async function hasRollups(runner: SqlRunner, runId: string): Promise<boolean> {
  const { rows } = await runner.query("SELECT 1 FROM run_rollups WHERE run_id = $1", [runId]);
  return rows.length > 0;
}
