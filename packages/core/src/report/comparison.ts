import type { PairedBootstrap } from "../stats/paired-bootstrap.js";

/** One headline figure of two runs over the tasks both have, with its bootstrap interval. */
export interface PairedDifference extends PairedBootstrap {
  /** "pass@1", "selected", "oracle", or a scorer key. */
  metric: string;
  /**
   * `accuracy`: a task counts 1 when solved, 0 when not (tasks whose correctness is known in
   * both runs). `scorer`: a task's value is the mean of its scored results for that scorer.
   */
  kind: "accuracy" | "scorer";
}

/** Whether the reported run differs from the compared one by more than noise. */
export interface RunComparison {
  /** The reported run: differences are this run minus the baseline. */
  runId: string;
  baselineRunId: string;
  resamples: number;
  seed: number;
  confidence: number;
  differences: PairedDifference[];
}
