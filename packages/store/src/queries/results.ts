import type { JobResult, TruncationRow, UsageRow } from "@assay/core";
import type { SqlRunner } from "../sql-runner.js";
import { INSERT_SCORES, scoreColumns, writeScores } from "./scores.js";

// Scores, truncations and usage of a batch in ONE statement, so a crash never leaves a
// score without its truncation log or cost (a resumed run would skip the scored sample
// and the missing rows would never be written).
const INSERT_RESULTS = `
  WITH inserted_scores AS (${INSERT_SCORES} RETURNING 1
  ), inserted_truncations AS (
    INSERT INTO truncations (run_id, sample_id, scorer, criterion, repetition,
                             original_tokens, kept_tokens, dropped_tokens, slot, policy)
    SELECT * FROM unnest($11::text[], $12::text[], $13::text[], $14::text[], $15::int[],
                         $16::int[], $17::int[], $18::int[], $19::text[], $20::text[])
    ON CONFLICT DO NOTHING
  ), inserted_usage AS (
    INSERT INTO usage (run_id, sample_id, role, scorer, model, input_tokens, cached_input_tokens,
                       output_tokens, compute_ms, device)
    SELECT * FROM unnest($21::text[], $22::text[], $23::text[], $24::text[], $25::text[],
                         $26::int[], $27::int[], $28::int[], $29::float8[], $30::text[])
    ON CONFLICT DO NOTHING
  )
  SELECT count(*)::int AS inserted FROM inserted_scores`;

/** Writes a batch of job results; returns how many score rows were new. */
export async function writeResults(
  runner: SqlRunner,
  results: readonly JobResult[],
): Promise<number> {
  const scores = results.map((result) => result.score);
  const truncations = results.flatMap((result) => result.truncations);
  const usage = results.flatMap((result) => result.usage);
  // Deterministic scorers have neither: the plain statement is cheaper.
  if (truncations.length === 0 && usage.length === 0) return writeScores(runner, scores);
  const { rows } = await runner.query<{ inserted: number }>(INSERT_RESULTS, [
    ...scoreColumns(scores),
    ...truncationColumns(truncations),
    ...usageColumns(usage),
  ]);
  return rows[0]?.inserted ?? 0;
}

function truncationColumns(rows: readonly TruncationRow[]): unknown[][] {
  return [
    rows.map((r) => r.runId),
    rows.map((r) => r.sampleId),
    rows.map((r) => r.scorer),
    rows.map((r) => r.criterion),
    rows.map((r) => r.repetition),
    rows.map((r) => r.originalTokens),
    rows.map((r) => r.keptTokens),
    rows.map((r) => r.droppedTokens),
    rows.map((r) => r.slot),
    rows.map((r) => r.policy),
  ];
}

function usageColumns(rows: readonly UsageRow[]): unknown[][] {
  return [
    rows.map((r) => r.runId),
    rows.map((r) => r.sampleId),
    rows.map((r) => r.role),
    rows.map((r) => r.scorer),
    rows.map((r) => r.model),
    rows.map((r) => r.inputTokens),
    rows.map((r) => r.cachedInputTokens),
    rows.map((r) => r.outputTokens),
    rows.map((r) => r.computeMs),
    rows.map((r) => r.device),
  ];
}
