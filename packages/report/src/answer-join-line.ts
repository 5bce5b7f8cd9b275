import type { AnswerJoinCounts, UnjoinedUsage } from "@assay/core";
import { formatMoney } from "./format.js";

/**
 * The answer join in one line: rows that took an answer, rows with none ("missing
 * answers"), and the answer lines that joined no row, by why. A second line tells the
 * tokens billed for lines that joined no row (unmatched, duplicate), and their cost when
 * the report was given prices.
 */
export function answerJoinLine(counts: AnswerJoinCounts): string {
  const line =
    `Answers joined: ${counts.joined}; missing answers: ${counts.missingAnswers}; ` +
    `unmatched answers: ${counts.unmatchedAnswers}; failed requests: ${counts.failedRequests}; ` +
    `duplicate custom ids: ${counts.duplicateAnswers}; ` +
    // A summary kept from before these were counted has neither.
    `retried failures: ${counts.retriedFailures ?? 0}`;
  const lost = counts.missingAnswers + counts.unmatchedAnswers + counts.duplicateAnswers;
  const first =
    lost > 0
      ? `WARNING ${line}. Each but a retried failure is an input error (assay export --table input_errors).`
      : line;
  const billed = billedLine(counts.unjoined ?? [], counts.unjoinedCost);
  return billed === undefined ? first : `${first}\n${billed}`;
}

function billedLine(
  unjoined: readonly UnjoinedUsage[],
  cost: AnswerJoinCounts["unjoinedCost"],
): string | undefined {
  if (unjoined.length === 0) return undefined;
  const sum = (pick: (usage: UnjoinedUsage) => number) =>
    unjoined.reduce((total, usage) => total + pick(usage), 0);
  const lines = sum((usage) => usage.lines);
  const oneHour = sum((usage) => usage.cacheWrite1hTokens ?? 0);
  // The 1-hour writes are priced apart, so the line says how many of the writes they are.
  const writes = `${sum((usage) => usage.cacheWriteTokens)} cache-write${oneHour > 0 ? ` (${oneHour} of them 1-hour)` : ""}`;
  const tokens =
    `${sum((usage) => usage.inputTokens)} input, ${sum((usage) => usage.cachedInputTokens)} cached input, ` +
    `${writes}, ${sum((usage) => usage.outputTokens)} output tokens`;
  const models = unjoined
    .map((usage) => `${usage.model || "(no model)"}: ${usage.lines}`)
    .join(", ");
  const price = cost === undefined ? "" : `; cost ${formatMoney(cost.amount, cost.currency)}`;
  return `Billed but not joined: ${lines} answer ${lines === 1 ? "line" : "lines"} (${models}), ${tokens}${price}`;
}
