import type { BatcherOptions } from "../batch/batcher.js";
import { DEFAULT_BATCH_ROWS, DEFAULT_BATCH_TOKENS } from "../batch/plan-batches.js";
import type { AssayConfig } from "../config/assay-config.js";

/** What the caller of `loadModel` asked for; an unset field falls back to assay.json. */
export interface RunSettingsRequest {
  batch?: BatcherOptions;
  reusePrefixes?: boolean;
}

/** The limits a model's batches run with, each one resolved: option > assay.json > default. */
export interface BatchSettings extends BatcherOptions {
  maxBatchTokens: number;
  maxBatchRows: number;
}

export function batchSettings(config: AssayConfig, request: RunSettingsRequest): BatchSettings {
  const asked = request.batch ?? {};
  return {
    ...(asked.maxWaitMs !== undefined && { maxWaitMs: asked.maxWaitMs }),
    maxBatchTokens: asked.maxBatchTokens ?? config.batch?.max_tokens ?? DEFAULT_BATCH_TOKENS,
    maxBatchRows: asked.maxBatchRows ?? config.batch?.max_rows ?? DEFAULT_BATCH_ROWS,
  };
}

/** Whether prefix reuse is wanted: option > assay.json `prefix_reuse` > on. */
export function prefixReuseWanted(config: AssayConfig, request: RunSettingsRequest): boolean {
  return request.reusePrefixes ?? config.prefix_reuse ?? true;
}
