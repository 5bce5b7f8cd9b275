import type { InputErrorSummary, Sample } from "@assay/core";
import type { SqlRunner } from "../sql-runner.js";
import { chunks } from "./chunks.js";

const CHUNK = 5000;

// unnest() turns one array parameter per column into rows: a constant number of
// parameters however many rows, and no SQL text built per row.
// The generator's token usage goes in the same statement, so a sample is never stored
// without the cost of producing it; only for samples this statement inserted, so a
// sample refused as a duplicate id never leaves its cost on the sample it collided with.
const INSERT_SAMPLES = `
  WITH inserted AS (
    INSERT INTO samples (run_id, sample_id, task_id, candidate_index, label, line, metadata)
    SELECT $1, * FROM unnest($2::text[], $3::text[], $4::int[], $5::bool[], $6::int[], $7::jsonb[])
    ON CONFLICT DO NOTHING
    RETURNING sample_id
  ), generator_usage AS (
    INSERT INTO usage (run_id, sample_id, role, model, input_tokens, cached_input_tokens, output_tokens, scorer)
    SELECT $1, g.sample_id, 'generator', g.model, g.input_tokens, g.cached_input_tokens, g.output_tokens, ''
    FROM unnest($8::text[], $9::text[], $10::int[], $11::int[], $12::int[])
      AS g(sample_id, model, input_tokens, cached_input_tokens, output_tokens)
    JOIN inserted USING (sample_id)
    ON CONFLICT DO NOTHING
  )
  SELECT count(*)::int AS inserted FROM inserted`;

const INSERT_INPUT_ERRORS = `
  INSERT INTO input_errors (run_id, file, line, field, message)
  SELECT $1, * FROM unnest($2::text[], $3::int[], $4::text[], $5::text[])
  ON CONFLICT DO NOTHING`;

export async function insertSamples(
  runner: SqlRunner,
  runId: string,
  samples: readonly Sample[],
): Promise<number> {
  let inserted = 0;
  for (const chunk of chunks(samples, CHUNK)) {
    const generated = chunk.filter((s) => s.generator !== undefined);
    const result = await runner.query<{ inserted: number }>(INSERT_SAMPLES, [
      runId,
      chunk.map((s) => s.id),
      chunk.map((s) => s.taskId),
      chunk.map((s) => s.candidateIndex),
      chunk.map((s) => s.label ?? null),
      chunk.map((s) => s.line),
      chunk.map((s) => JSON.stringify(s.metadata)),
      generated.map((s) => s.id),
      generated.map((s) => s.generator?.model),
      generated.map((s) => s.generator?.input_tokens),
      generated.map((s) => s.generator?.cached_input_tokens ?? 0),
      generated.map((s) => s.generator?.output_tokens),
    ]);
    inserted += result.rows[0]?.inserted ?? 0;
  }
  return inserted;
}

export async function insertInputErrors(
  runner: SqlRunner,
  runId: string,
  errors: readonly InputErrorSummary[],
): Promise<number> {
  let inserted = 0;
  for (const chunk of chunks(errors, CHUNK)) {
    const result = await runner.query(INSERT_INPUT_ERRORS, [
      runId,
      chunk.map((e) => e.file),
      chunk.map((e) => e.line),
      chunk.map((e) => e.field),
      chunk.map((e) => e.message),
    ]);
    inserted += result.rowCount;
  }
  return inserted;
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
