import type { Pool, ScoreJob } from "@assay/core";

/**
 * Processes one job. Resolves once the job's result is durably stored: a transport may
 * acknowledge the job as soon as this resolves. Throwing `UnrecoverableJobError` means
 * "do not retry"; any other error is treated as transient.
 */
export type JobHandler = (
  job: ScoreJob,
  signal: AbortSignal,
  attempt?: JobAttempt,
) => Promise<void>;

/** Which try of its job a handler is running; absent where a transport never retries. */
export interface JobAttempt {
  /** No retry follows a failure of this try: its attempts are used up. */
  final: boolean;
}

export interface ConsumeOptions {
  /** Jobs processed at once by this consumer. */
  concurrency: number;
}

export interface Consumer {
  /** Stop taking jobs, let in-flight ones finish, then resolve. */
  stop(): Promise<void>;
}

/**
 * Carries score jobs from a producer to the pools. Implementations: `LocalTransport`
 * (in-process, the embedded default) and the BullMQ transport (distributed).
 */
export interface Transport {
  readonly kind: "local" | "bullmq";
  /**
   * Adds jobs. Idempotent by `jobIdOf` key where the transport keeps jobs outside the
   * process. May wait while the queue is full (backpressure).
   */
  enqueue(jobs: readonly ScoreJob[]): Promise<void>;
  consume(pool: Pool, handler: JobHandler, options: ConsumeOptions): Consumer;
  close(): Promise<void>;
}
