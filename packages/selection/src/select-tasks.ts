import {
  type CandidateRow,
  discreteScoreOfDistributions,
  type SelectionRecord,
  type TaskCandidates,
} from "@assay/core";
import type { Candidate } from "./candidate.js";
import { candidateIndices } from "./candidate-indices.js";
import { DEFAULT_CORRECT_THRESHOLD, isCorrect } from "./correctness.js";
import type { PairJudgment } from "./pair-judgments.js";
import { type SelectOptions, selectTask, type TaskSelection } from "./select-task.js";

export interface SelectTasksOptions extends SelectOptions {
  /** A check value at or above this is correct. Default 0.5. */
  threshold?: number;
}

/**
 * Selects a candidate for each task, from the candidates as the store read them. With a
 * pairwise judge, `judgments` holds each task's stored pair judgments (by task id).
 */
export function selectTasks(
  tasks: readonly TaskCandidates[],
  options: SelectTasksOptions = {},
  judgments?: ReadonlyMap<string, PairJudgment[]>,
): TaskSelection[] {
  return tasks.map((task) => {
    const indices = candidateIndices(task.candidates.map((row) => row.candidateIndex));
    return selectTask(
      task.taskId,
      task.candidates.map((row, i) => candidateOf(row, options.threshold, indices[i])),
      options,
      judgments?.get(task.taskId),
    );
  });
}

/** `index`: what selection knows the candidate by (`candidateIndices`); default its own. */
export function candidateOf(
  row: CandidateRow,
  threshold = DEFAULT_CORRECT_THRESHOLD,
  index = row.candidateIndex,
): Candidate {
  return {
    index,
    sampleId: row.sampleId,
    score: row.verifierScore,
    discreteScore:
      row.discreteScore !== undefined ? row.discreteScore : discreteOf(row.verifierDistributions),
    correct: isCorrect({ label: row.label, checkValue: row.checkValue }, threshold),
  };
}

/** The mean of the rows' levels; null as soon as one row has none, or there is no row. */
function discreteOf(rows: readonly unknown[]): number | null {
  const levels = rows.map((row) =>
    typeof row === "number" ? row : discreteScoreOfDistributions(row),
  );
  const known = levels.filter((level): level is number => level !== null);
  return known.length === levels.length && known.length > 0 ? mean(known) : null;
}

/** The stored form of a selection: its evidence goes into `detail`. */
// Field by field rather than a rest and a spread: this runs once per task.
export function selectionRecordOf(selection: TaskSelection): SelectionRecord {
  const s = selection;
  return {
    taskId: s.taskId,
    method: s.method,
    candidates: s.candidates,
    selectedIndex: s.selectedIndex,
    selectedSampleId: s.selectedSampleId,
    tie: s.tie,
    discreteTie: s.discreteTie,
    tieBreak: s.tieBreak,
    selectedCorrect: s.selectedCorrect,
    firstCorrect: s.firstCorrect,
    anyCorrect: s.anyCorrect,
    detail: {
      reason: s.reason,
      scores: s.scores,
      comparisons: s.comparisons,
      ranking: s.ranking,
      pairwise: s.pairwise,
      pointwise: s.pointwise,
    },
  };
}

function mean(values: readonly number[]): number {
  return values.reduce((sum, v) => sum + v, 0) / values.length;
}
