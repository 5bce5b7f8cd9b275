import type { AnswerJoinCounts } from "@assay/core";

/**
 * The answer join in one line: rows that took an answer, rows with none ("missing
 * answers"), and the answer lines that joined no row, by why.
 */
export function answerJoinLine(counts: AnswerJoinCounts): string {
  const line =
    `Answers joined: ${counts.joined}; missing answers: ${counts.missingAnswers}; ` +
    `unmatched answers: ${counts.unmatchedAnswers}; failed requests: ${counts.failedRequests}; ` +
    `duplicate custom ids: ${counts.duplicateAnswers}`;
  const lost = counts.missingAnswers + counts.unmatchedAnswers + counts.duplicateAnswers;
  return lost > 0
    ? `WARNING ${line}. Each is an input error (assay export --table input_errors).`
    : line;
}
