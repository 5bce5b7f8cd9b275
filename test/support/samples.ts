import type { Sample } from "@assay/core";

/** A minimal valid sample; the task id is the id up to `#` (as for candidates). */
export function sample(id: string, overrides: Partial<Sample> = {}): Sample {
  return {
    id,
    taskId: id.split("#")[0] ?? id,
    candidateIndex: 0,
    question: "q",
    answer: "a",
    metadata: {},
    line: 1,
    ...overrides,
  };
}
