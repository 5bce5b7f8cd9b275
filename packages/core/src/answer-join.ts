/**
 * What joining answers from batch-generation outputs to a reference dataset came to. Every
 * reference row is joined or missing; every answer line is joined, failed, a retried
 * failure, a duplicate, unmatched or an input error of its own (a line that is not a batch
 * output line).
 */
export interface AnswerJoinCounts {
  /** Reference rows that took an answer. */
  joined: number;
  /** Reference rows with no usable answer: none was given, or its request failed. */
  missingAnswers: number;
  /** Answer lines whose custom id names no reference row. */
  unmatchedAnswers: number;
  /** Requests that errored, were canceled or expired. */
  failedRequests: number;
  /** Answered lines whose custom id an earlier answered line already gave. */
  duplicateAnswers: number;
  /**
   * Failed lines of a custom id that another line answered (a retry, in whichever file), or
   * that failed again after the line counted in `failedRequests`. No input error: the
   * request is joined, or counted failed, once.
   */
  retriedFailures: number;
  /**
   * Tokens billed for answered lines that joined no reference row (unmatched custom ids,
   * duplicates), per model in model order; empty when every billed line joined.
   */
  unjoined: UnjoinedUsage[];
  /**
   * What `unjoined` cost at the report's prices (`amount` null when some model has no
   * price); absent when no price table was given.
   */
  unjoinedCost?: { amount: number | null; currency: string };
}

/** Tokens of one model's answer lines that were billed but joined no row. */
export interface UnjoinedUsage {
  model: string;
  lines: number;
  /** Uncached input tokens; cached ones and cache writes are counted apart. */
  inputTokens: number;
  cachedInputTokens: number;
  cacheWriteTokens: number;
  /**
   * The part of `cacheWriteTokens` written to a 1-hour cache, priced at its own rate. Absent
   * from joins stored before it was counted: read as none.
   */
  cacheWrite1hTokens?: number;
  outputTokens: number;
}

/** Adds one billed line that joined no row to the per-model totals. */
export function addUnjoined(
  totals: UnjoinedUsage[],
  line: Omit<UnjoinedUsage, "lines">,
): UnjoinedUsage[] {
  let total = totals.find((usage) => usage.model === line.model);
  if (total === undefined) {
    total = {
      model: line.model,
      lines: 0,
      inputTokens: 0,
      cachedInputTokens: 0,
      cacheWriteTokens: 0,
      cacheWrite1hTokens: 0,
      outputTokens: 0,
    };
    totals.push(total);
    totals.sort((a, b) => (a.model < b.model ? -1 : a.model > b.model ? 1 : 0));
  }
  total.lines += 1;
  total.inputTokens += line.inputTokens;
  total.cachedInputTokens += line.cachedInputTokens;
  total.cacheWriteTokens += line.cacheWriteTokens;
  total.cacheWrite1hTokens = (total.cacheWrite1hTokens ?? 0) + (line.cacheWrite1hTokens ?? 0);
  total.outputTokens += line.outputTokens;
  return totals;
}

/** The formats `--answers-format` reads. */
export { ANSWER_FORMATS, type AnswerFormat } from "./input-formats.js";
