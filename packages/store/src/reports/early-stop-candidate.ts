import type { EarlyStopCandidate } from "@assay/core";
import { num } from "./group-by-run.js";

/** An early-stop candidate as the raw query and the rollup both return it. */
export interface EarlyStopRow {
  sample_id: string;
  task_id: string;
  scorer: string;
  from_step: unknown;
  falls: unknown;
  progress: (number | null)[];
}

export function earlyStopCandidateOf(runId: string, row: EarlyStopRow): EarlyStopCandidate {
  const fromStep = num(row.from_step);
  const falls = num(row.falls);
  return {
    runId,
    sampleId: row.sample_id,
    taskId: row.task_id,
    scorer: row.scorer,
    fromStep,
    falls,
    // Every value in a fall is a number: a null ends the streak.
    values: row.progress.slice(fromStep, fromStep + falls + 1) as number[],
    progress: row.progress,
  };
}
