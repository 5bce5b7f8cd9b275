import type { SqlRunner } from "../sql-runner.js";
import { numOrNull } from "./group-by-run.js";

// Primary-key lookups: the ids are computed by the caller (a task's pair prompts).
const PAIR_SCORES = `
  SELECT sample_id, status, value FROM scores
  WHERE run_id = $1 AND sample_id = ANY($2::text[]) AND scorer = $3`;

interface Row {
  sample_id: string;
  status: string;
  value: unknown;
}

/**
 * A pairwise judge's stored values by sample id: the probability, or null when the judge
 * left the prompt unscored. Ids with no row yet are absent.
 */
export async function pairScores(
  runner: SqlRunner,
  runId: string,
  scorer: string,
  sampleIds: readonly string[],
): Promise<Map<string, number | null>> {
  if (sampleIds.length === 0) return new Map();
  const { rows } = await runner.query<Row>(PAIR_SCORES, [runId, sampleIds, scorer]);
  return new Map(rows.map((r) => [r.sample_id, r.status === "scored" ? numOrNull(r.value) : null]));
}
