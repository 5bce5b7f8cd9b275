// The formats a dataset and a batch output may be read in, and the bounds of reading them.
// Kept apart from the core's index (zod and every schema) so that `--help`, which lists
// them, stays light.

/**
 * The longest dataset line (or CSV row, Parquet row) read when no --max-line-bytes is given:
 * 1 MiB, far above a real sample, small enough that a file without line breaks is refused
 * instead of read into memory whole.
 */
export const DEFAULT_MAX_LINE_BYTES = 1 << 20;

/**
 * Input errors of one run after which it stops reading (`--max-input-errors`): a file of
 * one repeated bad line is told in ten thousand rows, not millions.
 */
export const DEFAULT_MAX_INPUT_ERRORS = 10_000;

/** How a dataset's records are written. */
export const DATASET_FORMATS = ["jsonl", "csv", "tsv", "parquet"] as const;
export type DatasetFormat = (typeof DATASET_FORMATS)[number];

/** A `--format` value, or undefined when it is not one (the caller says what is). */
export function datasetFormat(value: string): DatasetFormat | undefined {
  return (DATASET_FORMATS as readonly string[]).includes(value)
    ? (value as DatasetFormat)
    : undefined;
}

/** The batch-generation outputs `--answers` reads (vLLM's batch runner writes OpenAI's). */
export const ANSWER_FORMATS = ["openai-batch", "anthropic-batch"] as const;
export type AnswerFormat = (typeof ANSWER_FORMATS)[number];

/**
 * The request files `assay requests` writes, one per provider batch API:
 * `openai-chat` (`/v1/chat/completions`), `openai-responses` (`/v1/responses`),
 * `anthropic-batch` (a Message Batches create body) and `vllm` (chat lines for
 * `vllm run-batch`).
 */
export const REQUEST_FORMATS = [
  "openai-chat",
  "openai-responses",
  "anthropic-batch",
  "vllm",
] as const;
export type RequestFormat = (typeof REQUEST_FORMATS)[number];
