import type { Pool, ScoreJob } from "@assay/core";

/** Default key prefix of every Assay queue in Redis; tests pass their own. */
export const DEFAULT_PREFIX = "assay";

/**
 * Queue of one pool. The GPU pool has one queue per model so that a worker process, which
 * holds one model on one device, only takes jobs it can run without loading another.
 */
export function queueNameFor(pool: Pool, model?: string): string {
  if (pool === "cpu" || model === undefined) return pool;
  // BullMQ refuses ":" in queue names (it separates key parts); keep names readable.
  return `gpu-${model.replace(/[^A-Za-z0-9_.-]+/g, "_")}`;
}

/** The queue a job goes to: its pool, and for the GPU pool the scorer's `args.model`. */
export function queueNameOf(job: ScoreJob): string {
  const model = job.scorer.args.model;
  return queueNameFor(job.pool, typeof model === "string" && model !== "" ? model : undefined);
}
