import type { InputErrorSummary, Sample } from "@assay/core";
import { type BulkTarget, bulkInsert, bulkPart } from "../bulk/bulk-statement.js";
import { countedInsert, insertRows } from "../bulk/insert-rows.js";
import { INPUT_ERROR_COLUMNS, SAMPLE_COLUMNS, USAGE_COLUMNS } from "../bulk/tables.js";
import type { SqlRunner } from "../sql-runner.js";
import { chunks } from "./chunks.js";

const CHUNK = 5000;

/**
 * Inserts samples; returns how many were new. The generator's token usage goes in the
 * same statement, so a sample is never stored without the cost of producing it; only
 * for samples this statement inserted, so a sample refused as a duplicate id never leaves
 * its cost on the sample it collided with.
 */
export async function insertSamples(
  target: BulkTarget,
  runId: string,
  samples: readonly Sample[],
): Promise<number> {
  let inserted = 0;
  for (const chunk of chunks(samples, CHUNK)) {
    const parts = [
      bulkPart(
        SAMPLE_COLUMNS,
        chunk.map((sample) => sampleRow(runId, sample)),
      ),
      bulkPart(
        USAGE_COLUMNS,
        chunk.flatMap((sample) => generatorUsage(runId, sample)),
      ),
    ];
    inserted += await bulkInsert(
      target,
      parts,
      (from) => `
        WITH inserted AS (${insertRows(SAMPLE_COLUMNS, from)} RETURNING sample_id),
        generator_usage AS (
          INSERT INTO usage (${USAGE_COLUMNS.names.join(", ")})
          SELECT g.* FROM ${from(USAGE_COLUMNS, "g")} JOIN inserted USING (sample_id)
          ON CONFLICT DO NOTHING
        )
        SELECT count(*)::int AS inserted FROM inserted`,
    );
  }
  return inserted;
}

function sampleRow(runId: string, sample: Sample) {
  return {
    runId,
    sampleId: sample.id,
    taskId: sample.taskId,
    candidateIndex: sample.candidateIndex,
    label: sample.label ?? null,
    line: sample.line,
    metadata: sample.metadata,
  };
}

function generatorUsage(runId: string, sample: Sample) {
  const generator = sample.generator;
  if (generator === undefined) return [];
  return [
    {
      runId,
      sampleId: sample.id,
      role: "generator",
      scorer: "",
      model: generator.model,
      inputTokens: generator.input_tokens,
      cachedInputTokens: generator.cached_input_tokens ?? 0,
      cacheWriteTokens: generator.cache_write_tokens ?? 0,
      cacheWrite1hTokens: generator.cache_write_1h_tokens ?? 0,
      outputTokens: generator.output_tokens,
      computeMs: null,
      device: null,
      prompts: null,
      forwardPasses: null,
    },
  ];
}

export async function insertInputErrors(
  target: BulkTarget,
  runId: string,
  errors: readonly InputErrorSummary[],
): Promise<number> {
  let inserted = 0;
  for (const chunk of chunks(errors, CHUNK)) {
    const rows = chunk.map((error) => ({ runId, ...error }));
    inserted += await bulkInsert(target, [bulkPart(INPUT_ERROR_COLUMNS, rows)], (from) =>
      countedInsert(INPUT_ERROR_COLUMNS, from),
    );
  }
  return inserted;
}

/**
 * Deletes the input errors of these lines of `file`: an earlier attempt refused them (say,
 * a last line cut off while the file was still being copied) and this one stored them, so
 * a line is never both a sample and an input error.
 */
export async function clearInputErrors(
  runner: SqlRunner,
  runId: string,
  file: string,
  lines: readonly number[],
): Promise<void> {
  if (lines.length === 0) return;
  await runner.query(
    "DELETE FROM input_errors WHERE run_id = $1 AND file = $2 AND line = ANY($3::int[])",
    [runId, file, lines],
  );
}

// A refused dataset line takes back the samples it stored, with their generator usage.
const DELETE_SAMPLES = `
  WITH doomed AS (
    DELETE FROM samples s
    USING unnest($2::text[], $3::int[]) AS d(sample_id, line)
    WHERE s.run_id = $1 AND s.sample_id = d.sample_id AND s.line = d.line
    RETURNING s.sample_id
  )
  DELETE FROM usage u USING doomed
  WHERE u.run_id = $1 AND u.sample_id = doomed.sample_id AND u.role = 'generator'`;

/** Deletes these samples where they were stored from the given line; returns nothing. */
export async function deleteSamples(
  runner: SqlRunner,
  runId: string,
  samples: readonly Pick<Sample, "id" | "line">[],
): Promise<void> {
  if (samples.length === 0) return;
  await runner.query(DELETE_SAMPLES, [runId, samples.map((s) => s.id), samples.map((s) => s.line)]);
}

/** The dataset line each of these samples was stored from (absent ids are left out). */
export async function sampleLines(
  runner: SqlRunner,
  runId: string,
  sampleIds: readonly string[],
): Promise<Map<string, number>> {
  if (sampleIds.length === 0) return new Map();
  const { rows } = await runner.query<{ sample_id: string; line: number }>(
    "SELECT sample_id, line FROM samples WHERE run_id = $1 AND sample_id = ANY($2::text[])",
    [runId, sampleIds],
  );
  return new Map(rows.map((row) => [row.sample_id, row.line]));
}
