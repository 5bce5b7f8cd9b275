import type { AnswerJoinCounts, UnjoinedUsage } from "@assay/core";
import type { SqlRunner } from "../sql-runner.js";

/** What a run's answer join came to; undefined for a run whose answers were not joined. */
export async function answerJoinCounts(
  runner: SqlRunner,
  runId: string,
): Promise<AnswerJoinCounts | undefined> {
  const { rows } = await runner.query<Record<string, unknown>>(
    `SELECT joined, missing_answers, unmatched_answers, failed_requests, duplicate_answers,
            retried_failures, unjoined_usage
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
    retriedFailures: Number(row.retried_failures),
    unjoined: unjoinedOf(row.unjoined_usage),
  };
}

/** The stored per-model totals, whichever way the driver hands jsonb back. */
function unjoinedOf(value: unknown): UnjoinedUsage[] {
  const list = (typeof value === "string" ? JSON.parse(value) : value) as UnjoinedUsage[] | null;
  return list ?? [];
}
