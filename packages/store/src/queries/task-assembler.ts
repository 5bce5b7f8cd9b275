import type { CandidateQuery, CandidateRow, TaskCandidates } from "@assay/core";

/**
 * One row of the candidate pass, as an array in this column order: a sample with one of its
 * scores (all four score columns null when it has none).
 */
export type CandidateScoreRow = [
  taskId: string,
  sampleId: string,
  candidateIndex: number,
  label: boolean | null,
  scorer: string | null,
  status: string | null,
  value: number | null,
  criteria: unknown,
];

/** A scorer's rows of one sample, folded as they arrive. */
interface Mean {
  sum: number;
  values: number;
  rows: number;
  unscored: boolean;
}

interface Building {
  row: CandidateRow;
  verifier: Mean;
  check: Mean;
}

/**
 * Folds the ordered rows of the candidate pass (task, candidate, then score) into whole
 * tasks. A fetch can end inside a task: that task waits for the next fetch.
 *
 * A scorer's value is the mean of its rows, null as soon as one is unscored (a partial
 * mean would pretend to know more than it does) or when it has none.
 */
export class TaskAssembler {
  readonly #query: CandidateQuery;
  #task: TaskCandidates | undefined;
  #candidate: Building | undefined;

  constructor(query: CandidateQuery) {
    this.#query = query;
  }

  /** The tasks these rows complete; with `last`, the task still open too. */
  add(rows: readonly unknown[], last: boolean): TaskCandidates[] {
    const done: TaskCandidates[] = [];
    for (const row of rows as readonly CandidateScoreRow[]) {
      if (this.#task?.taskId !== row[0]) {
        const finished = this.#closeTask();
        if (finished !== undefined) done.push(finished);
        this.#task = { taskId: row[0], candidates: [] };
      }
      if (this.#candidate?.row.sampleId !== row[1]) this.#openCandidate(row);
      this.#addScore(row);
    }
    if (last) {
      const finished = this.#closeTask();
      if (finished !== undefined) done.push(finished);
    }
    return done;
  }

  #openCandidate(row: CandidateScoreRow): void {
    this.#closeCandidate();
    this.#candidate = {
      row: {
        taskId: row[0],
        sampleId: row[1],
        candidateIndex: row[2],
        label: row[3],
        verifierScore: null,
        verifierCriteria: [],
        checkValue: null,
      },
      verifier: emptyMean(),
      check: emptyMean(),
    };
  }

  #addScore(row: CandidateScoreRow): void {
    const candidate = this.#candidate as Building;
    const [, , , , scorer, , , criteria] = row;
    if (scorer === null) return; // no score row at all (LEFT JOIN)
    if (scorer === this.#query.verifierScorer) {
      addTo(candidate.verifier, row);
      if (criteria !== null && criteria !== undefined)
        candidate.row.verifierCriteria.push(criteria);
    }
    if (scorer === this.#query.checkScorer) addTo(candidate.check, row);
  }

  #closeCandidate(): void {
    const candidate = this.#candidate;
    if (candidate === undefined) return;
    candidate.row.verifierScore = meanOf(candidate.verifier);
    candidate.row.checkValue = meanOf(candidate.check);
    this.#task?.candidates.push(candidate.row);
    this.#candidate = undefined;
  }

  #closeTask(): TaskCandidates | undefined {
    this.#closeCandidate();
    const task = this.#task;
    this.#task = undefined;
    return task;
  }
}

function emptyMean(): Mean {
  return { sum: 0, values: 0, rows: 0, unscored: false };
}

function addTo(mean: Mean, row: CandidateScoreRow): void {
  const [, , , , , status, value] = row;
  mean.rows += 1;
  if (status !== "scored") mean.unscored = true;
  if (value === null) return;
  mean.sum += Number(value);
  mean.values += 1;
}

// As SQL's avg(): null values are skipped, and no value at all gives null.
function meanOf(mean: Mean): number | null {
  if (mean.rows === 0 || mean.unscored || mean.values === 0) return null;
  return mean.sum / mean.values;
}
