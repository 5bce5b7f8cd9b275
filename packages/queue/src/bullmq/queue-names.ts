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
 * `--model ./.models/x` on a worker name one queue (see `modelIdentity`), and two models
 * never share one (`gpuQueueName`).
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
 * A queue an older version put a model's jobs in, and no worker of this version serves:
 * named after the model's spelling, or after its identity with every other character
 * written as "_" (which let `/a/b_c` and `/a/b/c` share a queue).
 */
export function isSpelledQueue(queue: string, model: string): boolean {
  if (queue === queueNameFor("gpu", model)) return false;
  return queue === lossyQueueName(model) || queue === lossyQueueName(modelIdentity(model));
}

function lossyQueueName(model: string): string {
  return `gpu-${model.replace(/[^A-Za-z0-9_.-]+/g, "_")}`;
}

/** Characters a queue name keeps as they are; every other one is escaped. */
const KEPT = /^[A-Za-z0-9.-]$/;

/**
 * The queue of a model's identity, written so that no two identities share a name:
 * letters, digits, "." and "-" are kept, and every other character becomes "_" and the hex
 * of each of its UTF-8 bytes ("/" is "_2f", "_" is "_5f"). Each piece is one kept
 * character or one "_" and two hex digits, so a name reads back into its identity in only
 * one way (`identityOfQueueName`). BullMQ refuses ":" in a name, and a Redis Cluster hash
 * tag is "{...}": neither is kept.
 */
export function gpuQueueName(identity: string): string {
  let name = "gpu-";
  for (const char of identity) {
    if (KEPT.test(char)) name += char;
    else for (const byte of utf8.encode(char)) name += `_${byte.toString(16).padStart(2, "0")}`;
  }
  return name;
}

/** The identity a GPU queue serves, read back from its name; undefined for another name. */
export function identityOfQueueName(queue: string): string | undefined {
  const escaped = /^gpu-((?:[A-Za-z0-9.-]|_[0-9a-f]{2})*)$/.exec(queue)?.[1];
  if (escaped === undefined) return undefined;
  const bytes: number[] = [];
  for (let i = 0; i < escaped.length; ) {
    if (escaped[i] === "_") {
      bytes.push(Number.parseInt(escaped.slice(i + 1, i + 3), 16));
      i += 3;
    } else {
      bytes.push(escaped.charCodeAt(i));
      i += 1;
    }
  }
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(new Uint8Array(bytes));
  } catch {
    return undefined; // bytes no identity is written as
  }
}

const utf8 = new TextEncoder();

/** The model a job's scorer runs, or undefined for a job that needs none. */
export function modelOf(job: ScoreJob): string | undefined {
  const model = job.scorer.args.model;
  return typeof model === "string" && model !== "" ? model : undefined;
}

/** The queue a job goes to: its pool, and for the GPU pool the scorer's `args.model`. */
export function queueNameOf(job: ScoreJob): string {
  return queueNameFor(job.pool, modelOf(job));
}
