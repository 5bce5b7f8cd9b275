import * as crypto from "node:crypto";
import { type ResultKey, resultKeyText } from "./result-key.js";
import type { Sample } from "./sample.js";
import type { Score } from "./score.js";
import { type ScorerRef, scorerKey } from "./scorer-ref.js";

export type Pool = "cpu" | "gpu";

/** One unit of work: score one sample with one scorer. Plain data, safe to serialize. */
export interface ScoreJob {
  runId: string;
  pool: Pool;
  /** Name of the routing rule that chose this scorer (or "sample" / "default"). */
  rule: string;
  scorer: ScorerRef;
  sample: Sample;
  /**
   * The job's time limit in ms, from the spec's `job_timeout_s`; absent, the worker's or
   * `assay run`'s `--job-timeout` applies.
   */
  timeoutMs?: number;
}

/**
 * The key of the result a job stores. A job's own row takes the default criterion ("") and
 * repetition (0); a verifier's per-criterion, per-variant records replace them in their
 * truncation rows. Job ids, resume checks and stored rows all use this key.
 */
export function resultKeyOfJob(job: Pick<ScoreJob, "runId" | "sample" | "scorer">): ResultKey {
  return jobResultKey(job.runId, job.sample.id, scorerKey(job.scorer));
}

/** `resultKeyOfJob` from the job's parts, for callers holding a scorer key, not the job. */
export function jobResultKey(runId: string, sampleId: string, scorer: string): ResultKey {
  return { runId, sampleId, scorer, criterion: "", repetition: 0 };
}

/** A score as stored: the key, how it was routed, and the outcome. */
export interface ScoreRow extends ResultKey {
  rule: string;
  status: Score["status"];
  value: number | null;
  reason: string | null;
  detail: Record<string, unknown> | null;
}

/**
 * Deterministic id of the job that produces `key`, so that enqueuing the same run twice
 * adds nothing. Hashed because queue ids have length and character limits.
 */
export function jobIdOf(key: ResultKey): string {
  return sha256Hex(resultKeyText(key)).slice(0, 40);
}

export function scoreRowOf(key: ResultKey, rule: string, score: Score): ScoreRow {
  // Written out rather than spread: this runs once per result on the hot path.
  return {
    runId: key.runId,
    sampleId: key.sampleId,
    scorer: key.scorer,
    criterion: key.criterion,
    repetition: key.repetition,
    rule,
    status: score.status,
    value: score.status === "scored" ? score.value : null,
    reason: score.status === "unscored" ? score.reason : null,
    detail: scoreDetail(score),
  };
}

function scoreDetail(score: Score): Record<string, unknown> | null {
  if (score.status === "unscored" && score.message !== undefined) {
    return { ...score.detail, message: score.message };
  }
  return score.detail ?? null;
}

// One-shot `crypto.hash` (Node 20.12 and later) is twice as fast as a Hash object, and
// this runs once per enqueued job; both give the same digest.
const sha256Hex: (text: string) => string =
  typeof crypto.hash === "function"
    ? (text) => crypto.hash("sha256", text, "hex")
    : (text) => crypto.createHash("sha256").update(text).digest("hex");
