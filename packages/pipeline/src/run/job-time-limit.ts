import { type Score, type ScoreJob, scorerKey, unscored } from "@assay/core";

/** A job's time limit when neither the spec (`job_timeout_s`) nor `--job-timeout` sets one. */
export const DEFAULT_JOB_TIMEOUT_MS = 600_000;

/**
 * A job whose scorer gave no score within the job's time limit. Thrown on a try that may be
 * retried, so the queue fails the try with this reason and retries it per its policy; the
 * last try stores the result unscored with reason `timeout` instead (see `timeLimited`).
 */
export class JobTimeoutError extends Error {
  override name = "JobTimeoutError";
  constructor(job: ScoreJob, limitMs: number) {
    super(`${describeLimit(job, limitMs)}; the job is retried`);
  }
}

/**
 * The score, or, once `limitMs` have passed without it, the limit's outcome: `abort` is
 * called (a model scorer stops what it has not started), then the try fails with a
 * `JobTimeoutError`, or, on the final try, the result is unscored with reason `timeout`.
 */
export function timeLimited(
  score: Promise<Score>,
  job: ScoreJob,
  limitMs: number,
  final: boolean,
  abort?: (reason: Error) => void,
): Promise<Score> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<Score>((resolve, reject) => {
    timer = setTimeout(() => {
      const error = new JobTimeoutError(job, limitMs);
      abort?.(error);
      if (final) resolve(unscored("timeout", describeLimit(job, limitMs)));
      else reject(error);
    }, limitMs);
  });
  return Promise.race([score, expired]).finally(() => clearTimeout(timer));
}

function describeLimit(job: ScoreJob, limitMs: number): string {
  return (
    `${scorerKey(job.scorer)} gave no score within the job time limit (${limitMs / 1000} s: ` +
    "the spec's job_timeout_s, else --job-timeout)"
  );
}
