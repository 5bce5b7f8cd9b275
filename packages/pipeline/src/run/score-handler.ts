import {
  printable,
  type Score,
  type ScoreContext,
  type ScoreJob,
  scorerKey,
  UnrecoverableJobError,
  unscored,
} from "@assay/core";
import type { JobHandler } from "@assay/queue";
import type { ScorerRegistry } from "@assay/scorers";
import { RejectedRowError, type ResultWriter, type Store } from "@assay/store";
import { jobResultOf } from "./job-result.js";

export interface ScoreHandlerOptions {
  registry: ScorerRegistry;
  writer: ResultWriter;
  /**
   * Where a result the store refuses is recorded as an input error on its sample's line
   * (the file is the run's dataset). Without it the refusal is only in the error row.
   */
  store?: Pick<Store, "getRun" | "insertInputErrors">;
  /**
   * When the store refuses even the error row that replaces a refused result, drop the
   * result instead of failing the job. For the in-process transport, which stops the run
   * on the first failed job; a queue marks the job failed (no retry) instead.
   */
  dropUnstorable?: boolean;
  /** Called after each stored result, e.g. to count progress. */
  onStored?: (score: Score, job: ScoreJob) => void;
}

/**
 * The one job handler every transport runs: build the scorer named in the job, score, and
 * store the result with its truncation and usage rows. Resolves only once they are
 * durable, so a transport may acknowledge the job then. A scorer that throws leaves the
 * sample unscored with reason "error": a retry would throw again. So does a result the
 * store refuses for what it holds (e.g. a scorer put an unpaired surrogate in its detail):
 * the refusal becomes an input error on the sample's line, and an error row takes the
 * result's place so the run still completes.
 */
export function createScoreHandler(options: ScoreHandlerOptions): JobHandler {
  const { registry, writer, onStored } = options;
  const refusals = options.store === undefined ? undefined : refusalLog(options.store);
  // A transport passes one signal to all its jobs: one context object for them all, rather
  // than one per job (this runs for every sample).
  let context: ScoreContext = {};
  return async (job, signal) => {
    if (context.signal !== signal) context = { signal };
    let score: Score;
    try {
      const scored = registry.create(job.scorer)(job.sample, context);
      // A deterministic scorer's score is not awaited: that would cost a microtask per job.
      // A score never has `then`; any promise does, from whichever realm it came.
      score = isPromiseLike(scored) ? await scored : scored;
    } catch (error) {
      // A scorer that throws would throw again on a retry: the sample stays unscored.
      const message = error instanceof Error ? error.message : String(error);
      score = unscored("error", `${job.scorer.name}: ${message}`);
    }
    try {
      await writer.add(jobResultOf(job, score));
      onStored?.(score, job);
    } catch (error) {
      if (!(error instanceof RejectedRowError)) throw error;
      await refusals?.(job, error);
      await storeErrorRow(job, error, options);
    }
  };
}

async function storeErrorRow(
  job: ScoreJob,
  refused: RejectedRowError,
  options: ScoreHandlerOptions,
): Promise<void> {
  const score = unscored("error", `the store refused this result: ${refused.reason}`);
  try {
    await options.writer.add(jobResultOf(job, score));
    options.onStored?.(score, job);
  } catch (error) {
    // Only the job's own key can make this row unstorable: nothing will ever store it.
    if (!(error instanceof RejectedRowError)) throw error;
    if (options.dropUnstorable === true) return;
    throw new UnrecoverableJobError(`result of ${describeJob(job)}: ${error.message}`, {
      cause: error,
    });
  }
}

/** Records a refused result as an input error on its sample's line, in its run's dataset. */
function refusalLog(
  store: Pick<Store, "getRun" | "insertInputErrors">,
): (job: ScoreJob, error: RejectedRowError) => Promise<void> {
  const fileOfRun = new Map<string, Promise<string>>();
  return async (job, error) => {
    let file = fileOfRun.get(job.runId);
    if (file === undefined) {
      file = store.getRun(job.runId).then((run) => run?.dataset ?? "(unknown dataset)");
      fileOfRun.set(job.runId, file);
    }
    await store.insertInputErrors(job.runId, [
      {
        file: await file,
        line: job.sample.line,
        field: "",
        message: `the store refused the result of ${describeJob(job)} (field unknown): ${error.reason}`,
      },
    ]);
  };
}

function describeJob(job: ScoreJob): string {
  return printable(`scorer "${scorerKey(job.scorer)}" for sample "${job.sample.id}"`);
}

function isPromiseLike(value: Score | PromiseLike<Score>): value is PromiseLike<Score> {
  // Null-safe: a scorer that breaks its contract fails where it did when every result was
  // awaited, not here.
  return typeof (value as { then?: unknown } | null)?.then === "function";
}
