import type { ScoreRow } from "./job.js";
import type { ResultKey } from "./result-key.js";

/** How fitting treated one model call: every call gets a row, cut or not. */
export interface TruncationRow extends ResultKey {
  originalTokens: number;
  keptTokens: number;
  droppedTokens: number;
  /** The slot whose text was cut, or "" when nothing was. */
  slot: string;
  policy: string;
}

/** Tokens and compute one sample cost, for the generator or for a verifier. */
export interface UsageRow {
  runId: string;
  sampleId: string;
  role: "generator" | "verifier";
  /** The scorer key for verifier rows; "" for the generator. */
  scorer: string;
  model: string;
  inputTokens: number;
  cachedInputTokens: number;
  /** Input tokens written to a prompt cache, apart from `inputTokens`; 0 for verifiers. */
  cacheWriteTokens: number;
  /** The part of `cacheWriteTokens` written to a 1-hour cache. Absent: none (verifiers). */
  cacheWrite1hTokens?: number;
  outputTokens: number;
  computeMs: number | null;
  device: string | null;
  /** Prompts the verifier scored; null for the generator and for rows stored before it was counted. */
  prompts: number | null;
  /**
   * The verifier's share of the forward passes it ran (each pass split evenly over its
   * rows); null for the generator and for rows stored before it was counted.
   */
  forwardPasses: number | null;
}

/** Everything one job stores, written together so that none of it is stored alone. */
export interface JobResult {
  score: ScoreRow;
  truncations: TruncationRow[];
  usage: UsageRow[];
}
