import type { AnswerJoinCounts } from "@assay/core";
import type { SqlRunner } from "../sql-runner.js";

/** What a run's answer join came to; undefined for a run whose answers were not joined. */
export async function answerJoinCounts(
  runner: SqlRunner,
  runId: string,
): Promise<AnswerJoinCounts | undefined> {
  const { rows } = await runner.query<Record<string, unknown>>(
    `SELECT joined, missing_answers, unmatched_answers, failed_requests, duplicate_answers
     FROM answer_joins WHERE run_id = $1`,
    [runId],
  );
  const row = rows[0];
  if (row === undefined) return undefined;
  return {
    joined: Number(row.joined),
    missingAnswers: Number(row.missing_answers),
    unmatchedAnswers: Number(row.unmatched_answers),
    failedRequests: Number(row.failed_requests),
    duplicateAnswers: Number(row.duplicate_answers),
  };
}
