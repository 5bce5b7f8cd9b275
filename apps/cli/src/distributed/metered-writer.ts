import type { ScoreRow } from "@assay/core";
import {
  BatchedWriter,
  type BatchedWriterOptions,
  type ScoreWriter,
  type Store,
} from "@assay/store";
import type { WorkerMetrics } from "./worker-metrics.js";

/**
 * The store's batched idempotent writer (what `store.createScoreWriter` builds), with each
 * flush timed and its size recorded. A job's `add()` resolves only after its batch is stored.
 */
export function meteredScoreWriter(
  store: Store,
  metrics: WorkerMetrics,
  options: BatchedWriterOptions,
): ScoreWriter {
  return new BatchedWriter<ScoreRow>(async (rows) => {
    const stopTimer = metrics.flushSeconds.startTimer();
    try {
      const inserted = await store.writeScores(rows);
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
