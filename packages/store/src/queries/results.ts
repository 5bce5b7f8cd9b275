import type { JobResult } from "@assay/core";
import { type BulkTarget, bulkInsert, bulkPart } from "../bulk/bulk-statement.js";
import { insertRows } from "../bulk/insert-rows.js";
import { SCORE_COLUMNS, TRUNCATION_COLUMNS, USAGE_COLUMNS } from "../bulk/tables.js";
import { writeScores } from "./scores.js";

/**
 * Writes a batch of job results; returns how many score rows were new. Scores,
 * truncations and usage go in ONE statement, so a crash never leaves a score without its
 * truncation log or cost (a resumed run would skip the scored sample and the missing rows
 * would never be written).
 */
export async function writeResults(
  target: BulkTarget,
  results: readonly JobResult[],
): Promise<number> {
  const scores = results.map((result) => result.score);
  const truncations = results.flatMap((result) => result.truncations);
  const usage = results.flatMap((result) => result.usage);
  // Deterministic scorers have neither: the plain statement is cheaper.
  if (truncations.length === 0 && usage.length === 0) return writeScores(target, scores);
  const parts = [
    bulkPart(SCORE_COLUMNS, scores),
    bulkPart(TRUNCATION_COLUMNS, truncations),
    bulkPart(USAGE_COLUMNS, usage),
  ];
  return bulkInsert(
    target,
    parts,
    (from) => `
      WITH inserted_scores AS (${insertRows(SCORE_COLUMNS, from)} RETURNING 1),
      inserted_truncations AS (${insertRows(TRUNCATION_COLUMNS, from)}),
      inserted_usage AS (${insertRows(USAGE_COLUMNS, from)})
      SELECT count(*)::int AS inserted FROM inserted_scores`,
  );
}
