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
import type { BatchJobHandler } from "@assay/queue/local";
import type { ScorerRegistry } from "@assay/scorers";
import { RejectedRowError, type ResultWriter, type Store } from "@assay/store";
import { jobResultOf } from "./job-result.js";
import { DEFAULT_JOB_TIMEOUT_MS, timeLimited } from "./job-time-limit.js";

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
  /**
   * Time limit of a job whose spec set none (`job.timeoutMs`), in ms. Default
   * DEFAULT_JOB_TIMEOUT_MS. Only a scorer that returns a promise can run past it.
   */
  jobTimeoutMs?: number;
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
  const handleBatch = createBatchScoreHandler(options);
  return (job, signal, attempt) => handleBatch([job], signal, attempt);
}

/**
 * The handler for jobs handed over together (`LocalTransport.consumeBatches`), each with
 * the outcome `createScoreHandler` describes, for one promise per batch instead of a few
 * per job; `createScoreHandler` is it for one job. Scores that are promises are awaited
 * together; a deterministic scorer's score is not awaited at all.
 */
export function createBatchScoreHandler(options: ScoreHandlerOptions): BatchJobHandler {
  const { writer, onStored } = options;
  const score = scoring(options.registry, options.jobTimeoutMs ?? DEFAULT_JOB_TIMEOUT_MS);
  const refused = refusalHandler(options);
  return async (jobs, signal, attempt) => {
    // A transport that never retries (the in-process one) runs every try as the last.
    const final = attempt?.final ?? true;
    const scores: Score[] = new Array(jobs.length);
    const waits: PromiseLike<void>[] = [];
    for (let index = 0; index < jobs.length; index += 1) {
      const scored = score(jobs[index] as ScoreJob, signal, final);
      if (!isPromiseLike(scored)) scores[index] = scored;
      else {
        waits.push(
          scored.then((result) => {
            scores[index] = result;
          }),
        );
      }
    }
    if (waits.length > 0) await Promise.all(waits);
    const failures = await writer.addAll(
      jobs.map((job, index) => jobResultOf(job, scores[index] as Score)),
    );
    let failure: unknown;
    for (let index = 0; index < jobs.length; index += 1) {
      const job = jobs[index] as ScoreJob;
      const error = failures.get(index);
      if (error === undefined) onStored?.(scores[index] as Score, job);
      else if (error instanceof RejectedRowError) await refused(job, error);
      else failure ??= error;
    }
    // As with one job a handler: a result not stored for another reason fails the run.
    if (failure !== undefined) throw failure;
  };
}

/**
 * Scores a job with the scorer it names. A scorer that throws or rejects leaves the sample
 * unscored with reason "error": a retry would throw again. A transport passes one signal
 * to all its jobs, so one context object serves them all (this runs for every sample); a
 * model job gets its own, aborted too when its time limit passes (`timeLimited`), so the
 * verifier drops the prompts it has not run rather than run them for nobody.
 */
function scoring(
  registry: ScorerRegistry,
  defaultTimeoutMs: number,
): (job: ScoreJob, signal: AbortSignal, final: boolean) => Score | Promise<Score> {
  let context: ScoreContext = {};
  return (job, signal, final) => {
    // A joined reply with no text (a refusal, only tool calls) is no answer to score.
    const { unanswered } = job.sample;
    if (unanswered !== undefined) return unscored(unanswered.reason, unanswered.message);
    if (context.signal !== signal) context = { signal };
    let limit: AbortController | undefined;
    let jobContext = context;
    if (job.pool === "gpu") {
      limit = new AbortController();
      jobContext = { signal: AbortSignal.any([signal, limit.signal]) };
    }
    try {
      const scored = registry.create(job.scorer)(job.sample, jobContext);
      // A score never has `then`; any promise does, from whichever realm it came.
      if (!isPromiseLike(scored)) return scored;
      const score = Promise.resolve(scored).catch((error) => scorerError(job, error));
      return timeLimited(score, job, job.timeoutMs ?? defaultTimeoutMs, final, (reason) =>
        limit?.abort(reason),
      );
    } catch (error) {
      return scorerError(job, error);
    }
  };
}

function scorerError(job: ScoreJob, error: unknown): Score {
  const message = error instanceof Error ? error.message : String(error);
  return unscored("error", `${job.scorer.name}: ${message}`);
}

/** What becomes of a result the store refused: an input error, and an error row instead. */
function refusalHandler(
  options: ScoreHandlerOptions,
): (job: ScoreJob, error: RejectedRowError) => Promise<void> {
  const refusals = options.store === undefined ? undefined : refusalLog(options.store);
  return async (job, error) => {
    await refusals?.(job, error);
    await storeErrorRow(job, error, options);
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
