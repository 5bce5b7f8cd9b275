import type { BatchedWriterOptions, ResultWriter, Store } from "@assay/store";
import type { WorkerMetrics } from "./worker-metrics.js";

/**
 * The store's batched idempotent writer with each write timed and its size and outcome
 * recorded. A job's `add()` resolves only after its batch is stored.
 */
export function meteredResultWriter(
  store: Store,
  metrics: WorkerMetrics,
  options: BatchedWriterOptions<number>,
): ResultWriter {
  return store.createResultWriter({
    ...options,
    onWrite: ({ rows, seconds, result: inserted }) => {
      metrics.flushSeconds.observe(seconds);
      metrics.batchSize.observe(rows);
      if (inserted === undefined) return;
      // Duplicates are jobs run twice (a killed worker, a lost ack); the upsert absorbs them.
      metrics.rowsWritten.inc({ outcome: "inserted" }, inserted);
      metrics.rowsWritten.inc({ outcome: "duplicate" }, rows - inserted);
    },
  });
}
