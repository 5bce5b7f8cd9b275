import type { Sample } from "@assay/core";
import { meanValue, type PromptRun } from "./run-prompts.js";

/** Steps are joined with a newline: the trajectory as a model that wrote them would show it. */
export const STEP_SEPARATOR = "\n";

/** One sample per prefix: steps[0..i] joined as its answer. None when there are no steps. */
export function trajectoryPrefixes(sample: Sample): Sample[] {
  const steps = sample.steps ?? [];
  return steps.map((_, i) => ({
    ...sample,
    answer: steps.slice(0, i + 1).join(STEP_SEPARATOR),
  }));
}

/** A prefix's value, computed as the final score is; null where that score would be unscored. */
export function progressValue(run: PromptRun): number | null {
  if (run.kind !== "ran") return null;
  const value = meanValue(run.values.map((v) => v.value));
  return value !== null && value >= 0 && value <= 1 ? value : null;
}
