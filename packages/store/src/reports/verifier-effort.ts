import { rateOf, type VerifierEffortReport, type VerifierEffortRow } from "@assay/core";
import type { SqlRunner } from "../sql-runner.js";
import { groupByRun, num } from "./group-by-run.js";

// Verifier usage by scorer, and its forward passes: one truncation row per prompt, and a
// prompt ran a pass unless it was refused (kept_tokens = 0). Trajectory prefix passes are
// in the tokens but have no truncation row, so a trajectory's passes are undercounted.
const VERIFIER_EFFORT = `
  WITH u AS (
    SELECT run_id, scorer, sum(input_tokens) AS input_tokens,
           sum(cached_input_tokens) AS cached_input_tokens
    FROM usage WHERE run_id = ANY($1::text[]) AND role = 'verifier' GROUP BY run_id, scorer
  ), t AS (
    SELECT run_id, scorer, count(*) FILTER (WHERE kept_tokens > 0) AS passes
    FROM truncations WHERE run_id = ANY($1::text[]) GROUP BY run_id, scorer
  )
  SELECT u.run_id, u.scorer, u.input_tokens, u.cached_input_tokens, coalesce(t.passes, 0) AS passes
  FROM u LEFT JOIN t ON t.run_id = u.run_id AND t.scorer = u.scorer
  ORDER BY u.run_id, u.scorer`;

interface Row {
  run_id: string;
  scorer: string;
  input_tokens: unknown;
  cached_input_tokens: unknown;
  passes: unknown;
}

export async function verifierEffortRows(
  runner: SqlRunner,
  runIds: readonly string[],
): Promise<Map<string, VerifierEffortRow[]>> {
  const { rows } = await runner.query<Row>(VERIFIER_EFFORT, [runIds]);
  const byRun = new Map<string, VerifierEffortRow[]>();
  for (const [runId, group] of groupByRun(rows)) {
    byRun.set(
      runId,
      group.map((r) => ({
        scorer: r.scorer,
        inputTokens: num(r.input_tokens),
        cachedInputTokens: num(r.cached_input_tokens),
        forwardPasses: num(r.passes),
      })),
    );
  }
  return byRun;
}

/** The verifier's spend per solved task (the tasks whose selected candidate is correct). */
export function verifierEffortOf(
  rows: readonly VerifierEffortRow[],
  solvedTasks: number,
): VerifierEffortReport {
  const computed = rows.reduce((sum, r) => sum + r.inputTokens, 0);
  const cached = rows.reduce((sum, r) => sum + r.cachedInputTokens, 0);
  const passes = rows.reduce((sum, r) => sum + r.forwardPasses, 0);
  const per = (total: number) => (solvedTasks > 0 ? total / solvedTasks : null);
  return {
    solvedTasks,
    byScorer: [...rows],
    tokensPerSolvedTask: per(computed + cached),
    forwardPassesPerSolvedTask: per(passes),
    cachedShare: rateOf(cached, computed + cached),
  };
}
