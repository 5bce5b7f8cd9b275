export interface BatchLimits {
  /** Most padded tokens (rows × longest row) in one forward pass. Default 16,384. */
  maxBatchTokens?: number;
  /** Most rows in one forward pass. Default 64. */
  maxBatchRows?: number;
}

export const DEFAULT_BATCH_TOKENS = 16_384;
export const DEFAULT_BATCH_ROWS = 64;

/**
 * How many of `lengths` (already in the order they will be batched) go into the next
 * batch: rows are added while rows × longest stays within the token budget. A row longer
 * than the budget runs alone.
 */
export function nextBatchSize(lengths: readonly number[], limits: BatchLimits = {}): number {
  const maxTokens = limits.maxBatchTokens ?? DEFAULT_BATCH_TOKENS;
  const maxRows = limits.maxBatchRows ?? DEFAULT_BATCH_ROWS;
  let longest = 0;
  let size = 0;
  for (const length of lengths) {
    const candidate = Math.max(longest, length);
    if (size > 0 && (candidate * (size + 1) > maxTokens || size + 1 > maxRows)) break;
    longest = candidate;
    size += 1;
  }
  return size;
}

/** Splits row indices into batches: length-sorted (longest first) or in arrival order. */
export function planBatches(
  lengths: readonly number[],
  limits: BatchLimits = {},
  order: "sorted" | "arrival" = "sorted",
): number[][] {
  const indices = lengths.map((_, i) => i);
  if (order === "sorted") indices.sort((a, b) => (lengths[b] ?? 0) - (lengths[a] ?? 0));
  const batches: number[][] = [];
  while (indices.length > 0) {
    const size = nextBatchSize(
      indices.map((i) => lengths[i] ?? 0),
      limits,
    );
    batches.push(indices.splice(0, size));
  }
  return batches;
}

/** Real tokens ÷ computed (padded) tokens of a batch plan. */
export function paddingEfficiency(
  lengths: readonly number[],
  batches: readonly number[][],
): number {
  let real = 0;
  let computed = 0;
  for (const batch of batches) {
    const rows = batch.map((i) => lengths[i] ?? 0);
    real += rows.reduce((a, b) => a + b, 0);
    computed += rows.length * Math.max(...rows);
  }
  return computed === 0 ? 1 : real / computed;
}
