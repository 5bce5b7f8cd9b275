import { rateOf } from "@assay/core";
import type { Store } from "@assay/store";
import {
  type CandidateRow,
  runnerOf,
  taskCandidatePages,
  writeSelections,
} from "@assay/store/reports";
import { type Accuracy, accuracyOf } from "./accuracy.js";
import type { Candidate } from "./candidate.js";
import { DEFAULT_CORRECT_THRESHOLD, isCorrect } from "./correctness.js";
import { discreteScoreOf } from "./discrete-score.js";
import { DEFAULT_PIVOTS } from "./pivot-tournament.js";
import { readPairJudgments } from "./read-pair-judgments.js";
import { type SelectOptions, selectTask, type TaskSelection } from "./select-task.js";

export interface SelectForRunOptions extends SelectOptions {
  /** Scorer key whose value ranks candidates (the verifier's). */
  verifierScorer: string;
  /** Deterministic scorer key deciding correctness where a candidate has no label. */
  checkScorer?: string;
  /** A check value at or above this is correct. Default 0.5. */
  threshold?: number;
  /** Tasks read and written per round trip. Default 2000. */
  tasksPerPage?: number;
  /** Scorer key of a pairwise judge whose stored pair judgments rank the tournament. */
  judgeScorer?: string;
}

export interface SelectForRunResult extends Accuracy {
  /** Tasks whose top was an exact tie, broken by the lowest candidate index. */
  ties: number;
}

/**
 * Selects a candidate for every task of the run and stores it (table `selections`,
 * replacing an earlier selection). Reads and writes whole pages of tasks, so memory stays
 * flat however large the run.
 */
export async function selectForRun(
  store: Store,
  runId: string,
  options: SelectForRunOptions,
): Promise<SelectForRunResult> {
  const runner = runnerOf(store.driver);
  const query = {
    verifierScorer: options.verifierScorer,
    ...(options.checkScorer !== undefined && { checkScorer: options.checkScorer }),
  };
  const totals: SelectForRunResult = { ...accuracyOf([]), ties: 0 };
  for await (const page of taskCandidatePages(runner, runId, query, options.tasksPerPage)) {
    const judgments =
      options.judgeScorer === undefined
        ? undefined
        : await readPairJudgments(runner, runId, options.judgeScorer, page, {
            k: options.k ?? DEFAULT_PIVOTS,
            seed: options.seed ?? 0,
          });
    const selections = [...groupByTask(page)].map(([taskId, rows]) =>
      selectTask(
        taskId,
        rows.map((row) => candidateOf(row, options.threshold)),
        options,
        judgments?.get(taskId),
      ),
    );
    await writeSelections(runner, runId, selections.map(recordOf));
    addTo(totals, selections);
  }
  return totals;
}

export function candidateOf(row: CandidateRow, threshold = DEFAULT_CORRECT_THRESHOLD): Candidate {
  const discrete = row.verifierCriteria.map((criteria) => discreteScoreOf({ criteria }));
  const known = discrete.filter((d): d is number => d !== null);
  return {
    index: row.candidateIndex,
    sampleId: row.sampleId,
    score: row.verifierScore,
    discreteScore: known.length === discrete.length && known.length > 0 ? mean(known) : null,
    correct: isCorrect({ label: row.label, checkValue: row.checkValue }, threshold),
  };
}

function recordOf(selection: TaskSelection) {
  const { scores, comparisons, ranking, pairwise, pointwise, ...columns } = selection;
  return { ...columns, detail: { scores, comparisons, ranking, pairwise, pointwise } };
}

function groupByTask(rows: readonly CandidateRow[]): Map<string, CandidateRow[]> {
  const tasks = new Map<string, CandidateRow[]>();
  for (const row of rows) tasks.set(row.taskId, [...(tasks.get(row.taskId) ?? []), row]);
  return tasks;
}

function addTo(totals: SelectForRunResult, selections: readonly TaskSelection[]): void {
  const page = accuracyOf(selections);
  totals.tasks += page.tasks;
  totals.unselected += page.unselected;
  for (const key of ["pass1", "selected", "oracle"] as const) {
    totals[key] = rateOf(totals[key].count + page[key].count, totals[key].of + page[key].of);
  }
  totals.ties += selections.filter((s) => s.tie).length;
}

function mean(values: readonly number[]): number {
  return values.reduce((sum, v) => sum + v, 0) / values.length;
}
