import type { JobResult } from "@assay/core";
import {
  BatchedWriter,
  type BatchedWriterOptions,
  type ResultWriter,
  type Store,
} from "@assay/store";
import type { WorkerMetrics } from "./worker-metrics.js";

/**
 * The store's batched idempotent writer (what `store.createResultWriter` builds), with each
 * flush timed and its size recorded. A job's `add()` resolves only after its batch is stored.
 */
export function meteredResultWriter(
  store: Store,
  metrics: WorkerMetrics,
  options: BatchedWriterOptions,
): ResultWriter {
  return new BatchedWriter<JobResult>(async (rows) => {
    const stopTimer = metrics.flushSeconds.startTimer();
    try {
      const inserted = await store.writeResults(rows);
      // Duplicates are jobs run twice (a killed worker, a lost ack); the upsert absorbs them.
      metrics.rowsWritten.inc({ outcome: "inserted" }, inserted);
      metrics.rowsWritten.inc({ outcome: "duplicate" }, rows.length - inserted);
      return inserted;
    } finally {
      stopTimer();
      metrics.batchSize.observe(rows.length);
    }
  }, options);
}
