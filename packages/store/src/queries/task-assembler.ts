import type { CandidateRow, TaskCandidates } from "@assay/core";

/** One row of the candidate pass, as an array in this column order: one sample. */
export type CandidateScoreRow = [
  taskId: string,
  sampleId: string,
  candidateIndex: number,
  label: boolean | null,
  verifierScore: number | null,
  checkValue: number | null,
  discrete: number | null,
  /** Set only for a sample with a verifier row stored without its level. */
  distributions: unknown[] | null,
  line: number,
];

/**
 * Groups candidate rows, each task's side by side, into whole tasks. A fetch can end inside
 * a task: that task waits for the next fetch. A task's candidates come out in candidate
 * index order, then line order; rows equal in both keep the order they came in (sample id
 * order either way), so rows read in sample id order make the same tasks as rows read in
 * task order.
 */
export class TaskAssembler {
  #taskId: string | undefined;
  #rows: CandidateScoreRow[] = [];

  /** The tasks these rows complete; with `last`, the task still open too. */
  add(rows: readonly unknown[], last: boolean): TaskCandidates[] {
    const done: TaskCandidates[] = [];
    for (const row of rows as readonly CandidateScoreRow[]) {
      if (this.#taskId !== row[0]) {
        if (this.#taskId !== undefined) done.push(this.#take(this.#taskId));
        this.#taskId = row[0];
      }
      this.#rows.push(row);
    }
    if (last && this.#taskId !== undefined) {
      done.push(this.#take(this.#taskId));
      this.#taskId = undefined;
    }
    return done;
  }

  #take(taskId: string): TaskCandidates {
    const rows = this.#rows;
    this.#rows = [];
    // Stable, and a task has a few candidates, usually in order already: then nothing is
    // sorted (a sort allocates a work area even for a few rows, once per task of the run).
    if (!inOrder(rows)) rows.sort(byIndexThenLine);
    return { taskId, candidates: rows.map(candidateOf) };
  }
}

function byIndexThenLine(a: CandidateScoreRow, b: CandidateScoreRow): number {
  return a[2] - b[2] || a[8] - b[8];
}

function inOrder(rows: readonly CandidateScoreRow[]): boolean {
  for (let i = 1; i < rows.length; i += 1) {
    if (byIndexThenLine(rows[i - 1] as CandidateScoreRow, rows[i] as CandidateScoreRow) > 0) {
      return false;
    }
  }
  return true;
}

function candidateOf(row: CandidateScoreRow): CandidateRow {
  const distributions = row[7];
  return {
    taskId: row[0],
    sampleId: row[1],
    candidateIndex: row[2],
    label: row[3],
    verifierScore: row[4],
    verifierDistributions: distributions ?? [],
    // Undefined: selection works it out from the rows' levels and distributions.
    discreteScore: distributions === null ? row[6] : undefined,
    checkValue: row[5],
  };
}
