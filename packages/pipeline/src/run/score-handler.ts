import { type Score, type ScoreJob, unscored } from "@assay/core";
import type { JobHandler } from "@assay/queue";
import type { ScorerRegistry } from "@assay/scorers";
import type { ResultWriter } from "@assay/store";
import { jobResultOf } from "./job-result.js";

export interface ScoreHandlerOptions {
  registry: ScorerRegistry;
  writer: ResultWriter;
  /** Called after each stored result, e.g. to count progress. */
  onStored?: (score: Score, job: ScoreJob) => void;
}

/**
 * The one job handler every transport runs: build the scorer named in the job, score, and
 * store the result with its truncation and usage rows. Resolves only once they are
 * durable, so a transport may acknowledge the job then. A scorer that throws leaves the
 * sample unscored with reason "error": a retry would throw again.
 */
export function createScoreHandler(options: ScoreHandlerOptions): JobHandler {
  const { registry, writer, onStored } = options;
  return async (job, signal) => {
    const score = await scoreSafely(job, signal, registry);
    await writer.add(jobResultOf(job, score));
    onStored?.(score, job);
  };
}

async function scoreSafely(
  job: ScoreJob,
  signal: AbortSignal,
  registry: ScorerRegistry,
): Promise<Score> {
  try {
    const scorer = registry.create(job.scorer);
    return await scorer(job.sample, { signal });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return unscored("error", `${job.scorer.name}: ${message}`);
  }
}
