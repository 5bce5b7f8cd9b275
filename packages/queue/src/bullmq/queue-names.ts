import type { Pool, ScoreJob } from "@assay/core";
import { modelIdentity } from "@assay/core/model-identity";

/** Default key prefix of every Assay queue in Redis; tests pass their own. */
export const DEFAULT_PREFIX = "assay";

/** Identities already worked out in this process: a producer asks once per job. */
const identities = new Map<string, string>();

/**
 * Queue of one pool. The GPU pool has one queue per model so that a worker process, which
 * holds one model on one device, only takes jobs it can run without loading another. The
 * queue follows the model's identity, not its spelling: `.models/x` in a spec and
 * `--model ./.models/x` on a worker name one queue (see `modelIdentity`).
 */
export function queueNameFor(pool: Pool, model?: string): string {
  if (pool === "cpu" || model === undefined) return pool;
  let identity = identities.get(model);
  if (identity === undefined) {
    identity = modelIdentity(model);
    identities.set(model, identity);
  }
  return gpuQueueName(identity);
}

/**
 * The queue older versions put a model's jobs in, named after the model's spelling; true
 * when it is not the model's queue now, so no worker will take the jobs left in it.
 */
export function isSpelledQueue(queue: string, model: string): boolean {
  const spelled = gpuQueueName(model);
  return queue === spelled && spelled !== queueNameFor("gpu", model);
}

// BullMQ refuses ":" in queue names (it separates key parts); keep names readable.
function gpuQueueName(model: string): string {
  return `gpu-${model.replace(/[^A-Za-z0-9_.-]+/g, "_")}`;
}

/** The model a job's scorer runs, or undefined for a job that needs none. */
export function modelOf(job: ScoreJob): string | undefined {
  const model = job.scorer.args.model;
  return typeof model === "string" && model !== "" ? model : undefined;
}

/** The queue a job goes to: its pool, and for the GPU pool the scorer's `args.model`. */
export function queueNameOf(job: ScoreJob): string {
  return queueNameFor(job.pool, modelOf(job));
}
