import {
  type BootstrapOptions,
  DEFAULT_BOOTSTRAP_SEED,
  DEFAULT_CONFIDENCE,
  DEFAULT_RESAMPLES,
  pairedBootstrapOfCounts,
  type RunComparison,
} from "@assay/core";
import type { SqlRunner } from "../sql-runner.js";
import { pairedDifferences } from "./paired-differences.js";

/**
 * The reported run minus the baseline for pass@1, selected, oracle and each scorer's mean,
 * paired over the tasks both runs have, each with a bootstrap interval over those tasks.
 * The database counts the tasks by difference; only those counts are read.
 */
export async function runComparison(
  runner: SqlRunner,
  runId: string,
  baselineRunId: string,
  options: BootstrapOptions = {},
): Promise<RunComparison> {
  const resamples = options.resamples ?? DEFAULT_RESAMPLES;
  const seed = options.seed ?? DEFAULT_BOOTSTRAP_SEED;
  const confidence = options.confidence ?? DEFAULT_CONFIDENCE;
  const paired = await pairedDifferences(runner, runId, baselineRunId);
  return {
    runId,
    baselineRunId,
    resamples,
    seed,
    confidence,
    differences: paired.map(({ metric, kind, counted }) => ({
      metric,
      kind,
      ...pairedBootstrapOfCounts(counted, { resamples, seed, confidence }),
    })),
  };
}
