import type { CriterionValues } from "@assay/core";
import { type AblationRow, rateOf } from "@assay/core";
import type { TaskRanking } from "../deciding-ranking.js";
import type { PairJudgment } from "../pair-judgments.js";
import { pairwiseTournament } from "../pairwise-tournament.js";
import {
  type AblationView,
  ablationViews,
  FULL_VIEW,
  shapeOf,
  type ValueShape,
  viewScore,
} from "./ablation-views.js";
import { type PickOptions, type TaskOutcome, taskOutcome } from "./pick-candidate.js";

/** A candidate with the stored values behind its verifier score. */
export interface AblationTaskCandidate {
  index: number;
  correct: boolean | null;
  /** One entry per stored verifier row: its criteria and their variant values. */
  rows: readonly (readonly CriterionValues[])[];
}

/** A task's stored pair judgments, for a run whose tournament a pairwise judge ranked. */
export interface AblationTaskJudgments {
  taskId: string;
  judgments: readonly PairJudgment[];
}

interface Counts {
  counted: number;
  solved: number;
  unselected: number;
  ties: number;
}

export interface AblationResult {
  shape: ValueShape;
  rows: AblationRow[];
}

/**
 * Selection under every view, one task at a time, so a run of any size is tallied in
 * constant memory. The views come from the first task whose candidates kept values (every
 * scored row of one verifier has the same C×K); a task none of whose candidates kept any
 * value fares the same under every view and is counted into each. A judged run's tasks
 * come with their stored judgments: the judge's ranking is fitted once per task, as no
 * view changes it, and every view picks by it as the run did.
 */
export class AblationTally {
  readonly #options: PickOptions;
  #shape: ValueShape | null = null;
  #views: AblationView[] = [];
  readonly #counts = new Map<AblationView, Counts>();
  readonly #valueless = emptyCounts();

  constructor(options: PickOptions) {
    this.#options = options;
  }

  add(task: readonly AblationTaskCandidate[], judge?: AblationTaskJudgments): void {
    const judged = this.#judged(task, judge);
    if (this.#shape === null) {
      const shape = firstShape(task);
      if (shape === null) {
        addOutcome(this.#valueless, this.#outcome(task, FULL_VIEW, judged));
        return;
      }
      this.#shape = shape;
      this.#views = ablationViews(shape);
      for (const view of this.#views) this.#counts.set(view, emptyCounts());
    }
    for (const view of this.#views) {
      addOutcome(this.#counts.get(view) as Counts, this.#outcome(task, view, judged));
    }
  }

  /** False once the views are known to be none (one criterion, one variant): stop reading. */
  get needsMore(): boolean {
    return this.#shape === null || this.#views.length > 0;
  }

  /** The rows, or null when there is nothing to take apart (C = K = 1, or no values at all). */
  result(): AblationResult | null {
    const shape = this.#shape;
    if (shape === null || this.#views.length === 0) return null;
    const rows = this.#views.map((view): AblationRow => {
      const counts = this.#counts.get(view) as Counts;
      const v = this.#valueless;
      return {
        kind: view.kind,
        criterion: view.criterion,
        variants: view.kind === "variants" ? view.variants : shape.variants,
        selected: rateOf(counts.solved + v.solved, counts.counted + v.counted),
        unselected: counts.unselected + v.unselected,
        ties: counts.ties + v.ties,
      };
    });
    return { shape, rows };
  }

  #outcome(
    task: readonly AblationTaskCandidate[],
    view: AblationView,
    judged: TaskRanking | undefined,
  ): TaskOutcome {
    const candidates = task.map((c) => ({
      index: c.index,
      correct: c.correct,
      score: viewScore(c.rows, view),
    }));
    return taskOutcome(candidates, this.#options, judged);
  }

  /** The judge's ranking of the task, as selection fitted it (same pivots, seed and pairs). */
  #judged(
    task: readonly AblationTaskCandidate[],
    judge: AblationTaskJudgments | undefined,
  ): TaskRanking | undefined {
    if (judge === undefined || this.#options.method !== "pivot_tournament") return undefined;
    return pairwiseTournament(
      task.map((c) => c.index),
      judge.judgments,
      { k: this.#options.k, seed: this.#options.seed ?? 0, taskId: judge.taskId },
    );
  }
}

function firstShape(task: readonly AblationTaskCandidate[]): ValueShape | null {
  for (const candidate of task) {
    const shape = shapeOf(candidate.rows);
    if (shape !== null) return shape;
  }
  return null;
}

function emptyCounts(): Counts {
  return { counted: 0, solved: 0, unselected: 0, ties: 0 };
}

function addOutcome(counts: Counts, outcome: TaskOutcome): void {
  if (outcome.counted) counts.counted += 1;
  if (outcome.solved) counts.solved += 1;
  if (outcome.unselected) counts.unselected += 1;
  if (outcome.tie) counts.ties += 1;
}
