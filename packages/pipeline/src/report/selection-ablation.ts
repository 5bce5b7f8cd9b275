import {
  type SelectionAblation,
  type SelectionSpec,
  SelectionSpecSchema,
  scorerKey,
} from "@assay/core";
import {
  AblationTally,
  type AblationTaskCandidate,
  candidateIndices,
  isCorrect,
  type PairJudgment,
} from "@assay/selection";
import type { Store } from "@assay/store";
import type { AblationCandidateRow } from "@assay/store/reports";
import { readPairJudgments } from "../run/read-pair-judgments.js";

export interface SelectionAblationOptions {
  /** Tasks read per round trip. Default 2000. */
  tasksPerPage?: number;
}

/**
 * Selected accuracy of the run re-computed from its stored per-criterion, per-variant
 * verifier values: each criterion alone and the first 1..K variants, next to the full mean.
 * Uses the selection the run's stored spec asked for (verifier, check, threshold, method,
 * and a pairwise judge's stored judgments, read as selection read them), so the full mean
 * is the run's own selected accuracy; undefined when the spec asked for none or the
 * verifier used one criterion and one variant.
 */
export async function selectionAblation(
  store: Store,
  runId: string,
  options: SelectionAblationOptions = {},
): Promise<SelectionAblation | undefined> {
  const spec = selectionSpecOf((await store.getRun(runId))?.spec);
  if (spec === undefined) return undefined;
  const tally = new AblationTally({ method: spec.method, k: spec.k, seed: spec.seed });
  const query = {
    verifierScorer: spec.verifier,
    ...(spec.check !== undefined && { checkScorer: spec.check }),
  };
  const judge = spec.judge === undefined ? undefined : scorerKey(spec.judge);
  const pages = store.ablationCandidatePages(runId, query, options.tasksPerPage);
  for await (const page of pages) {
    const tasks = [...groupByTask(page)];
    const judgments =
      judge === undefined
        ? undefined
        : await readPairJudgments(
            tasks.map(plannedTask),
            judge,
            { k: spec.k, seed: spec.seed },
            (scorer, ids) => store.pairScores(runId, scorer, ids),
          );
    for (const task of tasks) {
      const indices = candidateIndices(task.map((row) => row.candidateIndex));
      tally.add(
        task.map((row, i) => candidateOf(row, spec.threshold, indices[i] as number)),
        taskJudgments(task, judgments),
      );
    }
    if (!tally.needsMore) return undefined;
  }
  const result = tally.result();
  if (result === null) return undefined;
  return {
    scorer: spec.verifier,
    method: spec.method,
    ...(judge !== undefined && { judge }),
    criteria: result.shape.criteria,
    variants: result.shape.variants,
    rows: result.rows,
  };
}

function plannedTask(task: readonly AblationCandidateRow[]) {
  return {
    taskId: (task[0] as AblationCandidateRow).taskId,
    candidateIndices: task.map((row) => row.candidateIndex),
  };
}

function taskJudgments(
  task: readonly AblationCandidateRow[],
  judgments: ReadonlyMap<string, PairJudgment[]> | undefined,
) {
  if (judgments === undefined) return undefined;
  const taskId = (task[0] as AblationCandidateRow).taskId;
  return { taskId, judgments: judgments.get(taskId) ?? [] };
}

/** The selection part of a stored (already resolved) spec; undefined when it has none. */
function selectionSpecOf(spec: unknown): SelectionSpec | undefined {
  const selection = (spec as { selection?: unknown } | null | undefined)?.selection;
  if (selection === undefined) return undefined;
  const parsed = SelectionSpecSchema.safeParse(selection);
  return parsed.success ? parsed.data : undefined;
}

function candidateOf(
  row: AblationCandidateRow,
  threshold: number,
  index: number,
): AblationTaskCandidate {
  return {
    index,
    correct: isCorrect({ label: row.label, checkValue: row.checkValue }, threshold),
    rows: row.verifierRows,
  };
}

/** Rows come ordered by task, so each task's candidates are adjacent. */
function* groupByTask(rows: readonly AblationCandidateRow[]): Generator<AblationCandidateRow[]> {
  let task: AblationCandidateRow[] = [];
  for (const row of rows) {
    if (task.length > 0 && task[0]?.taskId !== row.taskId) {
      yield task;
      task = [];
    }
    task.push(row);
  }
  if (task.length > 0) yield task;
}
