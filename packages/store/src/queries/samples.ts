import type { InputErrorSummary, Sample } from "@assay/core";
import type { SqlRunner } from "../sql-runner.js";
import { chunks } from "./chunks.js";

const CHUNK = 5000;

// unnest() turns one array parameter per column into rows: a constant number of
// parameters however many rows, and no SQL text built per row.
const INSERT_SAMPLES = `
  INSERT INTO samples (run_id, sample_id, task_id, candidate_index, label, line, metadata)
  SELECT $1, * FROM unnest($2::text[], $3::text[], $4::int[], $5::bool[], $6::int[], $7::jsonb[])
  ON CONFLICT DO NOTHING`;

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
    const result = await runner.query(INSERT_SAMPLES, [
      runId,
      chunk.map((s) => s.id),
      chunk.map((s) => s.taskId),
      chunk.map((s) => s.candidateIndex),
      chunk.map((s) => s.label ?? null),
      chunk.map((s) => s.line),
      chunk.map((s) => JSON.stringify(s.metadata)),
    ]);
    inserted += result.rowCount;
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
