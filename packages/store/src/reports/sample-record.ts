import type { SampleRecord, ScoreRecord, TruncationRecord, UsageRecord } from "@assay/core";
import type { SqlRunner } from "../sql-runner.js";
import { num, numOrNull } from "./group-by-run.js";

const SAMPLE = `
  SELECT task_id, candidate_index, label, line, metadata
  FROM samples WHERE run_id = $1 AND sample_id = $2`;

const SCORES = `
  SELECT scorer, criterion, repetition, rule, status, value, reason, detail
  FROM scores WHERE run_id = $1 AND sample_id = $2
  ORDER BY scorer, criterion, repetition`;

// A verifier result has one truncation row per prompt: its key carries the prompt's
// criterion and variant in place of the score's.
const TRUNCATIONS = `
  SELECT scorer, criterion, repetition, original_tokens, kept_tokens, dropped_tokens, slot, policy
  FROM truncations WHERE run_id = $1 AND sample_id = $2
  ORDER BY scorer, criterion, repetition`;

// The generator's row has scorer ''; a verifier's row carries its scorer key.
const USAGE = `
  SELECT role, scorer, model, input_tokens, cached_input_tokens, cache_write_tokens,
         cache_write_1h_tokens, output_tokens,
         compute_ms, device
  FROM usage WHERE run_id = $1 AND sample_id = $2`;

type Row = Record<string, unknown>;

/** What the store holds about one sample: the sample row, its scores, truncations and usage. */
export async function sampleRecord(
  runner: SqlRunner,
  runId: string,
  sampleId: string,
): Promise<SampleRecord | undefined> {
  const params = [runId, sampleId];
  const [samples, scores, truncations, usage] = await Promise.all([
    runner.query<Row>(SAMPLE, params),
    runner.query<Row>(SCORES, params),
    runner.query<Row>(TRUNCATIONS, params),
    runner.query<Row>(USAGE, params),
  ]);
  const sample = samples.rows[0];
  if (sample === undefined) return undefined;
  const usageOf = (role: string, scorer: string): UsageRecord | null => {
    const row = usage.rows.find((r) => r.role === role && r.scorer === scorer);
    return row === undefined ? null : usageRecord(row);
  };
  return {
    runId,
    sampleId,
    taskId: String(sample.task_id),
    candidateIndex: num(sample.candidate_index),
    label: (sample.label as boolean | null) ?? null,
    line: num(sample.line),
    metadata: (sample.metadata as Record<string, unknown>) ?? {},
    generator: usageOf("generator", ""),
    scores: scores.rows.map((row) => ({
      ...scoreRecord(row),
      truncations: truncations.rows.filter((t) => t.scorer === row.scorer).map(truncationRecord),
      usage: usageOf("verifier", String(row.scorer)),
    })),
  };
}

function scoreRecord(row: Row): Omit<ScoreRecord, "truncations" | "usage"> {
  return {
    scorer: String(row.scorer),
    criterion: String(row.criterion),
    repetition: num(row.repetition),
    rule: String(row.rule),
    status: row.status === "scored" ? "scored" : "unscored",
    value: numOrNull(row.value),
    reason: (row.reason as string | null) ?? null,
    detail: (row.detail as Record<string, unknown> | null) ?? null,
  };
}

function truncationRecord(row: Row): TruncationRecord {
  return {
    criterion: String(row.criterion),
    variant: num(row.repetition),
    originalTokens: num(row.original_tokens),
    keptTokens: num(row.kept_tokens),
    droppedTokens: num(row.dropped_tokens),
    slot: String(row.slot),
    policy: String(row.policy),
  };
}

function usageRecord(row: Row): UsageRecord {
  return {
    role: row.role === "verifier" ? "verifier" : "generator",
    model: String(row.model),
    inputTokens: num(row.input_tokens),
    cachedInputTokens: num(row.cached_input_tokens),
    cacheWriteTokens: num(row.cache_write_tokens),
    cacheWrite1hTokens: num(row.cache_write_1h_tokens),
    outputTokens: num(row.output_tokens),
    computeMs: numOrNull(row.compute_ms),
    device: (row.device as string | null) ?? null,
  };
}
