import type { RunSpecInput, ScoreRow } from "@assay/core";
import { pairPrompts } from "@assay/selection";
import type { Store } from "@assay/store";
import type { SelectForRunOptions } from "../../../src/index.js";
import { insertCandidateSamples } from "./candidate-samples.js";

/** The scorer key of the pairwise judge a judged run stores its pair judgments under. */
export const PAIR_JUDGE = "pair";

/** One candidate: its label and the verifier's values by criterion, then variant. */
export interface AblationCandidateSpec {
  label?: boolean;
  /** values[c][k]; null is a prompt with no score mass; "overflow" kept no values. */
  values: (number | null)[][] | "overflow";
}

export interface AblationRunSpec {
  criteria: string[];
  tasks: Record<string, AblationCandidateSpec[]>;
  method?: "best_of_n" | "pivot_tournament";
  k?: number;
  /**
   * A pairwise judge (`pivot_tournament` only) and its pivot seed. By task, each
   * candidate's strength s: a planned prompt stores P(A better) = s_A / (s_A + s_B); a
   * task left out, or a null strength, stores nothing for the prompts it is in.
   */
  judge?: { seed: number; strengths: Record<string, (number | null)[]> };
}

/** What the run's stored spec asks selection to do, as `selectForRun` takes it. */
export function selectOptionsOf(run: AblationRunSpec): SelectForRunOptions {
  return {
    verifierScorer: "judge",
    method: run.method ?? "best_of_n",
    k: run.k ?? 3,
    ...(run.judge !== undefined && { seed: run.judge.seed, judgeScorer: PAIR_JUDGE }),
  };
}

/**
 * Stores a run the way the pipeline does for a verifier scorer "judge": one row per
 * candidate whose detail keeps every criterion's variant values, and whose value is their
 * mean in criterion-major order (unscored when one is missing).
 */
export async function seedAblationRun(
  store: Store,
  runId: string,
  run: AblationRunSpec,
): Promise<void> {
  const spec: RunSpecInput = {
    rules: [],
    selection: {
      verifier: "judge",
      method: run.method ?? "best_of_n",
      k: run.k ?? 3,
      ...(run.judge !== undefined && {
        seed: run.judge.seed,
        judge: { name: "pairwise", key: PAIR_JUDGE },
      }),
    },
  };
  await store.startRun({ id: runId, spec, transport: "local" });
  const entries = await insertCandidateSamples(store, runId, run.tasks);
  await store.writeScores(entries.map(({ id, candidate }) => scoreRow(runId, id, run, candidate)));
  const judged = pairRows(runId, run);
  if (judged.length > 0) await store.writeScores(judged);
}

/** The judge's stored prompts: the pairs the run planned, each order under its own id. */
function pairRows(runId: string, run: AblationRunSpec): ScoreRow[] {
  const judge = run.judge;
  if (judge === undefined) return [];
  return Object.entries(run.tasks).flatMap(([taskId, candidates]) => {
    const strengths = judge.strengths[taskId] ?? [];
    const prompts = pairPrompts(
      taskId,
      candidates.map((_, index) => index),
      { k: run.k ?? 3, seed: judge.seed },
    );
    return prompts.flatMap((prompt): ScoreRow[] => {
      const a = strengths[prompt.first] ?? null;
      const b = strengths[prompt.second] ?? null;
      if (a === null || b === null) return [];
      return [
        {
          runId,
          sampleId: prompt.sampleId,
          scorer: PAIR_JUDGE,
          criterion: "",
          repetition: 0,
          rule: "selection",
          status: "scored",
          value: a / (a + b),
          reason: null,
          detail: null,
        },
      ];
    });
  });
}

function scoreRow(
  runId: string,
  sampleId: string,
  run: AblationRunSpec,
  candidate: AblationCandidateSpec,
): ScoreRow {
  const key = { runId, sampleId, scorer: "judge", criterion: "", repetition: 0, rule: "default" };
  if (candidate.values === "overflow") {
    return {
      ...key,
      status: "unscored",
      value: null,
      reason: "overflow",
      detail: { criteria: [] },
    };
  }
  const criteria = candidate.values.map((values, c) => ({
    name: run.criteria[c] ?? `c${c}`,
    value: meanOrNull(values),
    variants: values.map((value, variant) => ({
      variant,
      value,
      mass: value === null ? 0 : 0.9,
      distribution: value === null ? [] : [1 - value, value],
    })),
  }));
  const value = meanOrNull(candidate.values.flat());
  return {
    ...key,
    status: value === null ? "unscored" : "scored",
    value,
    reason: value === null ? "no_score_mass" : null,
    detail: { head: "distribution", criteria },
  };
}

/** The verifier's own mean: a plain sum in order, then one division. */
function meanOrNull(values: readonly (number | null)[]): number | null {
  if (values.length === 0 || values.some((v) => v === null)) return null;
  return (values as number[]).reduce((a, b) => a + b, 0) / values.length;
}
