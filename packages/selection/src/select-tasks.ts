import type { CandidateRow, SelectionRecord, TaskCandidates } from "@assay/core";
import type { Candidate } from "./candidate.js";
import { DEFAULT_CORRECT_THRESHOLD, isCorrect } from "./correctness.js";
import { discreteScoreOfDistributions } from "./discrete-score.js";
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
  return tasks.map((task) =>
    selectTask(
      task.taskId,
      task.candidates.map((row) => candidateOf(row, options.threshold)),
      options,
      judgments?.get(task.taskId),
    ),
  );
}

export function candidateOf(row: CandidateRow, threshold = DEFAULT_CORRECT_THRESHOLD): Candidate {
  const discrete = row.verifierDistributions.map(discreteScoreOfDistributions);
  const known = discrete.filter((d): d is number => d !== null);
  return {
    index: row.candidateIndex,
    sampleId: row.sampleId,
    score: row.verifierScore,
    discreteScore: known.length === discrete.length && known.length > 0 ? mean(known) : null,
    correct: isCorrect({ label: row.label, checkValue: row.checkValue }, threshold),
  };
}

/** The stored form of a selection: its evidence goes into `detail`. */
export function selectionRecordOf(selection: TaskSelection): SelectionRecord {
  const { scores, comparisons, ranking, pairwise, pointwise, ...columns } = selection;
  return { ...columns, detail: { scores, comparisons, ranking, pairwise, pointwise } };
}

function mean(values: readonly number[]): number {
  return values.reduce((sum, v) => sum + v, 0) / values.length;
}
