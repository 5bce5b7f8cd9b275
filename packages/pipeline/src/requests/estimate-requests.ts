import { approximateTokens, type BatchTokenCounts, InputError } from "@assay/core";
import { countTokens } from "gpt-tokenizer/encoding/o200k_base";
import type { OpenDataset } from "../ingest/open-dataset.js";
import { type RowRequestOptions, rowRequests } from "./row-requests.js";

/** How far `approximateTokens` was from a real tokenizer, on a sample of the prompts. */
export interface ApproximationError {
  tokenizer: "o200k_base";
  /** Prompts counted both ways. */
  sampled: number;
  /** Σ approximation / Σ tokenizer − 1 over the sample: the total's error. */
  totalError: number;
  /** The median of |approximation / tokenizer − 1| over the sampled prompts. */
  medianPromptError: number;
}

export interface RequestsEstimate extends BatchTokenCounts {
  refusedRows: number;
  approximation: ApproximationError | null;
}

/** Sampled prompts are kept between this many and twice as many (their two counts only). */
const SAMPLE = 500;

/**
 * Counts what `writeRequests` would send, writing nothing: prompt tokens by
 * `approximateTokens` (one per 4 characters: fast on any dataset), and, on an evenly
 * spread sample of the prompts, the same prompts counted with o200k_base (OpenAI's
 * tokenizer for the GPT-4o, 4.1 and 5 families) to measure the approximation's error.
 */
export async function estimateRequests(
  dataset: OpenDataset,
  options: RowRequestOptions & { onError: (error: InputError) => void },
): Promise<RequestsEstimate> {
  const counts: RequestsEstimate = {
    rows: 0,
    requests: 0,
    inputTokens: 0,
    maxOutputTokens: options.settings.maxTokens === undefined ? null : 0,
    refusedRows: 0,
    approximation: null,
  };
  const sample = new StrideSample();
  for await (const row of rowRequests(dataset, options)) {
    if (row instanceof InputError) {
      counts.refusedRows += 1;
      options.onError(row);
      continue;
    }
    counts.rows += 1;
    counts.requests += row.requests.length;
    counts.inputTokens += approximateTokens(row.promptChars) * row.requests.length;
    if (counts.maxOutputTokens !== null) {
      counts.maxOutputTokens += (options.settings.maxTokens as number) * options.settings.samples;
    }
    sample.offer(row.promptChars, () => row.promptText);
  }
  counts.approximation = sample.error();
  return counts;
}

/**
 * Every `stride`-th prompt, the stride doubling (and the kept pairs thinning to match)
 * whenever the sample reaches twice its size: an even spread over a stream of unknown
 * length, with at most 2 × SAMPLE prompts tokenized per doubling.
 */
class StrideSample {
  #index = 0;
  #stride = 1;
  #pairs: { index: number; approximate: number; exact: number }[] = [];

  offer(chars: number, text: () => string): void {
    const index = this.#index;
    this.#index += 1;
    if (index % this.#stride !== 0) return;
    this.#pairs.push({ index, approximate: approximateTokens(chars), exact: countTokens(text()) });
    if (this.#pairs.length < 2 * SAMPLE) return;
    this.#stride *= 2;
    this.#pairs = this.#pairs.filter((pair) => pair.index % this.#stride === 0);
  }

  error(): ApproximationError | null {
    const pairs = this.#pairs.filter((pair) => pair.exact > 0);
    if (pairs.length === 0) return null;
    const sum = (key: "approximate" | "exact") => pairs.reduce((total, p) => total + p[key], 0);
    const errors = pairs.map((p) => Math.abs(p.approximate / p.exact - 1)).sort((a, b) => a - b);
    const middle = Math.floor(errors.length / 2);
    const median =
      errors.length % 2 === 1
        ? (errors[middle] as number)
        : ((errors[middle - 1] as number) + (errors[middle] as number)) / 2;
    return {
      tokenizer: "o200k_base",
      sampled: pairs.length,
      totalError: sum("approximate") / sum("exact") - 1,
      medianPromptError: median,
    };
  }
}
