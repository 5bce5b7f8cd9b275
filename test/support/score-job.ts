import type { Pool, ScoreJob } from "@assay/core";

/** A minimal score job for transport tests; the scorer is never run here. */
export function scoreJob(
  sampleId: string,
  options: { pool?: Pool; model?: string; runId?: string } = {},
): ScoreJob {
  return {
    runId: options.runId ?? "run-1",
    pool: options.pool ?? "cpu",
    rule: "default",
    scorer: { name: "exact", args: options.model === undefined ? {} : { model: options.model } },
    sample: {
      id: sampleId,
      taskId: sampleId,
      candidateIndex: 0,
      question: "q",
      answer: "a",
      metadata: {},
      line: 1,
    },
  };
}
