/**
 * What joining answers from batch-generation outputs to a reference dataset came to. Every
 * reference row is joined or missing; every answer line is joined, failed, a duplicate,
 * unmatched or an input error of its own (a line that is not a batch output line).
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
  /** Answer lines whose custom id an earlier line already gave. */
  duplicateAnswers: number;
}

/** The formats `--answers-format` reads. */
export { ANSWER_FORMATS, type AnswerFormat } from "./input-formats.js";
