import { rateOf, type VerifierEffortReport, type VerifierEffortRow } from "@assay/core";
import type { SqlRunner } from "../sql-runner.js";
import { groupByRun, num, numOrNull } from "./group-by-run.js";

// Verifier usage by scorer, from the usage rows alone: tokens, prompts scored, and the
// scorer's share of the forward passes run. A row stored before prompts and passes were
// counted has them null, and then so has its scorer's total: unknown, never a partial sum.
// Pass shares are fractions (a pass split over its rows); they are summed as numeric, in
// any order to the same result, and rounded to 6 places, so a run's passes read whole.
const VERIFIER_EFFORT = `
  SELECT run_id, scorer, sum(input_tokens) AS input_tokens,
         sum(cached_input_tokens) AS cached_input_tokens,
         CASE WHEN count(prompts) = count(*) THEN sum(prompts) END AS prompts,
         CASE WHEN count(forward_passes) = count(*)
              THEN round(sum(forward_passes::numeric), 6)::float8 END AS forward_passes
  FROM usage WHERE run_id = ANY($1::text[]) AND role = 'verifier'
  GROUP BY run_id, scorer ORDER BY run_id, scorer`;

interface Row {
  run_id: string;
  scorer: string;
  input_tokens: unknown;
  cached_input_tokens: unknown;
  prompts: unknown;
  forward_passes: unknown;
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
        prompts: numOrNull(r.prompts),
        forwardPasses: numOrNull(r.forward_passes),
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
  const per = (total: number | null) =>
    total !== null && solvedTasks > 0 ? total / solvedTasks : null;
  return {
    solvedTasks,
    byScorer: [...rows],
    tokensPerSolvedTask: per(computed + cached),
    promptsPerSolvedTask: per(knownSum(rows.map((r) => r.prompts))),
    forwardPassesPerSolvedTask: per(knownSum(rows.map((r) => r.forwardPasses))),
    cachedShare: rateOf(cached, computed + cached),
  };
}

/** The sum, or null when any part is unknown (a partial sum would pass for the whole). */
function knownSum(values: readonly (number | null | undefined)[]): number | null {
  let sum = 0;
  for (const value of values) {
    if (value === null || value === undefined) return null;
    sum += value;
  }
  return sum;
}
