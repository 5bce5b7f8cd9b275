import { stat } from "node:fs/promises";
import { jobResultKey, type RunSpec, type ScoreJob } from "@assay/core";
import { type JobQueue, parseSpec, produce } from "@assay/pipeline";
import {
  type BullmqTransport,
  failedJobsOf,
  moveSpelledQueueJobs,
  requeueJobs,
  retryFailedJobs,
} from "@assay/queue";
import type { ScorerRegistry } from "@assay/scorers";
import type { RunRecord, Store } from "@assay/store";
import { modifiedAfter } from "../modified-after.js";

export interface RetryOutcome {
  runId: string;
  /** Failed jobs of the run found in Redis. */
  failed: number;
  /** Of those, moved back to waiting with fresh attempts. */
  retried: number;
  /** Failed jobs whose result is stored after all (nothing to do). */
  alreadyStored: number;
  /** Planned results missing from the store that were put back in a queue. */
  missingEnqueued: number;
  /** Missing results whose job is waiting or running already. */
  missingPending: number;
  /** Results the run plans; null when the dataset could not be read again. */
  planned: number | null;
  /** Why missing results were not looked for, when they were not. */
  skippedMissing: string | null;
  /** Jobs moved from a queue named after a spelling of their model to the model's queue. */
  movedToModelQueue: number;
  /** Every planned result was stored: the dataset was not read again. */
  nothingMissing: boolean;
}

export interface RetryOptions {
  store: Store;
  transport: BullmqTransport;
  registry: ScorerRegistry;
  run: RunRecord;
  /** Read the dataset from here instead of the path the run recorded (trusted as is). */
  dataset?: string;
}

/**
 * Puts a distributed run's unfinished work back in the queues: its failed jobs (retried
 * with fresh attempts) and every planned result missing from the store, found by planning
 * the run's dataset with its stored spec again, as a resumed `assay produce` would. Job ids
 * are the result keys, so nothing is scored twice and no row is written twice.
 */
export async function retryRun(options: RetryOptions): Promise<RetryOutcome> {
  const { store, transport, run } = options;
  const movedToModelQueue = await moveSpelledQueueJobs(transport, run.id);
  const failed = await failedJobsOf(transport, run.id);
  const toRetry = await store.missingJobs(run.id, failed, (job) =>
    jobResultKey(run.id, job.sampleId, job.scorer),
  );
  // Results are missing again: the run finishes anew when they are stored, not at the
  // time it first finished.
  if (toRetry.length > 0) await store.reopenRun(run.id);
  const retried = await retryFailedJobs(transport, toRetry);
  const outcome: RetryOutcome = {
    runId: run.id,
    failed: failed.length,
    retried,
    alreadyStored: failed.length - toRetry.length,
    missingEnqueued: 0,
    missingPending: 0,
    planned: null,
    skippedMissing: null,
    movedToModelQueue,
    nothingMissing: false,
  };

  // Every planned result stored: planning the dataset again would find nothing missing.
  if (run.plannedResults !== null && (await store.countResults(run.id)) >= run.plannedResults) {
    outcome.planned = run.plannedResults;
    outcome.nothingMissing = true;
    return outcome;
  }
  const dataset = await datasetToPlan(run, options.dataset);
  if (typeof dataset !== "string") {
    outcome.skippedMissing = dataset.reason;
    return outcome;
  }
  const spec = storedSpec(run, options.registry);
  const produced = await produce({
    store,
    transport: requeueing(transport, store, run.id, outcome),
    registry: options.registry,
    dataset,
    spec,
    runId: run.id,
  });
  outcome.planned = produced.planned;
  return outcome;
}

/** The run's spec as stored when it was produced, checked against this registry. */
export function storedSpec(run: RunRecord, registry: ScorerRegistry): RunSpec {
  return parseSpec(JSON.stringify(run.spec), `the stored spec of run ${run.id}.json`, registry);
}

/**
 * The dataset to plan missing results from. The recorded one is refused when it is gone
 * or was modified after the run started: planning an edited file would enqueue work the
 * run never had. An explicit `--dataset` is trusted.
 */
async function datasetToPlan(
  run: RunRecord,
  explicit: string | undefined,
): Promise<string | { reason: string }> {
  if (explicit !== undefined) return explicit;
  // The absolute path (links resolved) works from any folder; the path as given only from
  // the one `assay produce` ran in. Runs made before it was recorded have only that.
  const dataset = run.datasetPath ?? run.dataset;
  if (dataset === null) return { reason: "the run recorded no dataset" };
  const info = await stat(dataset).catch(() => undefined);
  if (info === undefined || !info.isFile()) {
    return { reason: `the dataset ${dataset} cannot be read here; pass --dataset <file>` };
  }
  if (modifiedAfter(info, run.createdAt)) {
    return {
      reason: `the dataset ${dataset} was modified after the run started; pass --dataset ${dataset} to plan from it anyway`,
    };
  }
  return dataset;
}

/** What `produce` enqueues is exactly the planned work missing from the store. */
function requeueing(
  transport: BullmqTransport,
  store: Store,
  runId: string,
  outcome: RetryOutcome,
): JobQueue {
  // The failed jobs retried above may complete while this plans: ask the store again before
  // a completed job runs a second time.
  const stillMissing = (jobs: readonly ScoreJob[]): Promise<ScoreJob[]> =>
    store.missingJobs(runId, jobs);
  return {
    async enqueue(jobs: readonly ScoreJob[]) {
      if (jobs.length === 0) return;
      const result = await requeueJobs(transport, jobs, { stillMissing });
      outcome.missingEnqueued += result.enqueued;
      outcome.missingPending += result.pending;
    },
  };
}

export function renderRetryOutcome(outcome: RetryOutcome): string {
  const total = outcome.retried + outcome.missingEnqueued;
  const lines = [
    `Re-enqueued ${total} jobs of run ${outcome.runId}: ${outcome.retried} failed jobs retried, ` +
      `${outcome.missingEnqueued} missing results enqueued.`,
  ];
  if (outcome.movedToModelQueue > 0) {
    lines.push(
      `${outcome.movedToModelQueue} jobs waiting in a queue named after a spelling of their model were moved to their model's queue.`,
    );
  }
  if (outcome.nothingMissing) {
    lines.push(
      `Every one of the run's ${outcome.planned} planned results is stored: nothing is missing, the dataset was not read again.`,
    );
  }
  if (outcome.alreadyStored > 0) {
    lines.push(`${outcome.alreadyStored} failed jobs had their result stored already; left alone.`);
  }
  if (outcome.missingPending > 0) {
    lines.push(
      `${outcome.missingPending} missing results were waiting or running already (the failed jobs just retried among them).`,
    );
  }
  if (outcome.skippedMissing !== null) {
    lines.push(`Missing results were not looked for: ${outcome.skippedMissing}.`);
  }
  return lines.join("\n");
}
