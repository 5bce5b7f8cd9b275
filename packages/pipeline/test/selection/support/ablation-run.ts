import type { RunSpecInput, ScoreRow } from "@assay/core";
import type { Store } from "@assay/store";
import { insertCandidateSamples } from "./candidate-samples.js";

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
    selection: { verifier: "judge", method: run.method ?? "best_of_n", k: run.k ?? 3 },
  };
  await store.startRun({ id: runId, spec, transport: "local" });
  const entries = await insertCandidateSamples(store, runId, run.tasks);
  await store.writeScores(entries.map(({ id, candidate }) => scoreRow(runId, id, run, candidate)));
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
