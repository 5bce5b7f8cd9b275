import { type Score, scoreRowOf, scorerKey, unscored } from "@assay/core";
import type { JobHandler } from "@assay/queue";
import type { ScorerRegistry } from "@assay/scorers";
import type { ScoreWriter } from "@assay/store";

export interface ScoreHandlerOptions {
  registry: ScorerRegistry;
  writer: ScoreWriter;
  /** Called after each stored result, e.g. to count progress. */
  onStored?: (score: Score) => void;
}

/**
 * The one job handler every transport runs: build the scorer named in the job, score, and
 * store the result. Resolves only once the row is durable, so a transport may acknowledge
 * the job then. A scorer that throws leaves the sample unscored with reason "error": a
 * retry would throw again.
 */
export function createScoreHandler(options: ScoreHandlerOptions): JobHandler {
  const { registry, writer, onStored } = options;
  return async (job, signal) => {
    const score = await scoreSafely(job, signal, registry);
    const key = {
      runId: job.runId,
      sampleId: job.sample.id,
      scorer: scorerKey(job.scorer),
      criterion: "",
      repetition: 0,
    };
    await writer.add(scoreRowOf(key, job.rule, score));
    onStored?.(score);
  };
}

async function scoreSafely(
  job: Parameters<JobHandler>[0],
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
