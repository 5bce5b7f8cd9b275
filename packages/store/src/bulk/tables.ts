import { RESULT_KEY_FIELDS, type ScoreRow } from "@assay/core";
import { inputErrors, samples, scores, truncations, usage } from "../schema.js";
import { columnList } from "./column-list.js";
import { storedDiscreteLevel } from "./stored-discrete-level.js";

// The columns each bulk write fills, named by the schema's property names, which are the
// field names of the row types in @assay/core (ScoreRow, TruncationRow, UsageRow); a score
// row is stored with its discrete level, worked out from its detail as it is written.

export const SCORE_COLUMNS = columnList(
  scores,
  [...RESULT_KEY_FIELDS, "rule", "status", "value", "reason", "detail", "discreteLevel"],
  { discreteLevel: (row: ScoreRow) => storedDiscreteLevel(row.detail) },
);

export const TRUNCATION_COLUMNS = columnList(truncations, [
  ...RESULT_KEY_FIELDS,
  "originalTokens",
  "keptTokens",
  "droppedTokens",
  "slot",
  "policy",
]);

/** What a usage row counts, by the same names in `usage` and `usage_rollups` (their sums). */
export const USAGE_AMOUNTS = [
  "inputTokens",
  "cachedInputTokens",
  "cacheWriteTokens",
  "outputTokens",
  "computeMs",
] as const;

/** 1-hour cache writes, part of `cacheWriteTokens`: a row without them (a verifier's) has none. */
export const cacheWrite1hOf = {
  cacheWrite1hTokens: (row: { cacheWrite1hTokens?: number }) => row.cacheWrite1hTokens ?? 0,
};

export const USAGE_COLUMNS = columnList(
  usage,
  [
    "runId",
    "sampleId",
    "role",
    "scorer",
    "model",
    ...USAGE_AMOUNTS,
    "cacheWrite1hTokens",
    "device",
    "prompts",
    "forwardPasses",
  ],
  cacheWrite1hOf,
);

export const SAMPLE_COLUMNS = columnList(samples, [
  "runId",
  "sampleId",
  "taskId",
  "candidateIndex",
  "label",
  "line",
  "metadata",
]);

export const INPUT_ERROR_COLUMNS = columnList(inputErrors, [
  "runId",
  "file",
  "line",
  "field",
  "message",
]);
