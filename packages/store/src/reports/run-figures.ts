import type {
  PairwiseReport,
  ScorerCalibration,
  SelfPreference,
  TruncationReport,
  UsageTotals,
  VerifierEffortRow,
} from "@assay/core";
import type { SqlRunner } from "../sql-runner.js";
import { calibrationStats } from "./calibration-stats.js";
import { pairwiseStats } from "./pairwise-stats.js";
import { readRollups } from "./rollups/read-rollups.js";
import { runTablesOf } from "./run-tables.js";
import { NO_SCORES, type ScoreStats, scoreStats } from "./score-stats.js";
import { NO_SELECTIONS, type SelectionStats, selectionStats } from "./selection-stats.js";
import { selfPreferenceStats } from "./self-preference-stats.js";
import { solvedByModel } from "./solved-by-model.js";
import { solvedWithoutSelection } from "./solved-stats.js";
import { type TaskCounts, taskCounts } from "./task-counts.js";
import { NO_TRUNCATION_DATA, truncationStats } from "./truncation-stats.js";
import { usageTotals } from "./usage-totals.js";
import { verifierEffortRows } from "./verifier-effort.js";

/** Everything a run report shows about one run, before prices are applied. */
export interface RunFigures {
  counts: TaskCounts;
  selection: SelectionStats;
  usage: UsageTotals[];
  truncation: TruncationReport;
  scores: ScoreStats;
  calibration: ScorerCalibration[];
  selfPreference: SelfPreference[];
  /** Pointwise vs pairwise accuracy and position bias; null without a pairwise judge. */
  pairwise: PairwiseReport | null;
  /** Verifier tokens and forward passes by scorer, before dividing by solved tasks. */
  verifierEffort: VerifierEffortRow[];
  /** Tasks solved: by the pick with selection, else by the pass rule (solved-stats.ts). */
  solved: SolvedFigure;
}

export interface SolvedFigure {
  decidedBy: "selection" | "pass_rule";
  solved: number;
}

/**
 * Each run's figures: from its rollups when it has them, else from its raw rows (a run
 * still running, or one whose selection was just rewritten). Either way the figures are
 * the same; only the cost differs.
 */
export async function runFigures(
  runner: SqlRunner,
  runIds: readonly string[],
): Promise<Map<string, RunFigures>> {
  const rolledUp = await readRollups(runner, runIds);
  const raw = await rawRunFigures(
    runner,
    runIds.filter((id) => !rolledUp.has(id)),
  );
  return new Map([...rolledUp, ...raw]);
}

/** Each run's figures from its raw rows: one query per figure, for all runs at once. */
export async function rawRunFigures(
  runner: SqlRunner,
  runIds: readonly string[],
): Promise<Map<string, RunFigures>> {
  if (runIds.length === 0) return new Map();
  // The runs' partitions, looked up once for the figures that join raw tables.
  const tables = await runTablesOf(runner, runIds);
  const [
    counts,
    selections,
    usage,
    truncation,
    scores,
    calibration,
    preference,
    pairwise,
    effort,
    solvedByRule,
    solvedModels,
  ] = await Promise.all([
    taskCounts(runner, runIds),
    selectionStats(runner, runIds),
    usageTotals(runner, runIds),
    truncationStats(runner, runIds),
    scoreStats(runner, runIds),
    calibrationStats(runner, tables),
    selfPreferenceStats(runner, tables),
    pairwiseStats(runner, runIds),
    verifierEffortRows(runner, runIds),
    solvedWithoutSelection(runner, tables),
    solvedByModel(runner, tables),
  ]);
  return new Map(
    runIds.map((id) => {
      const selection = selections.get(id) ?? NO_SELECTIONS;
      const byRule = solvedByRule.get(id);
      const figures: RunFigures = {
        counts: counts.get(id) ?? { samples: 0, tasks: 0 },
        selection,
        usage: withSolved(usage.get(id) ?? [], solvedModels.get(id)),
        truncation: truncation.get(id) ?? NO_TRUNCATION_DATA,
        scores: scores.get(id) ?? NO_SCORES,
        calibration: calibration.get(id) ?? [],
        selfPreference: preference.get(id) ?? [],
        pairwise: pairwise.get(id) ?? null,
        verifierEffort: effort.get(id) ?? [],
        solved:
          byRule === undefined
            ? { decidedBy: "selection", solved: selection.selected.count }
            : { decidedBy: "pass_rule", solved: byRule },
      };
      return [id, figures];
    }),
  );
}

/** Each generator row with its model's solved tasks (0 when it decided none). */
function withSolved(
  usage: readonly UsageTotals[],
  solved: ReadonlyMap<string, number> = new Map(),
): UsageTotals[] {
  return usage.map((row) =>
    row.role === "generator" ? { ...row, solved: solved.get(row.model) ?? 0 } : row,
  );
}
