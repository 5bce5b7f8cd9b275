import type { InputErrorSummary } from "@assay/core";
import type { Store } from "@assay/store";
import type { ErrorRecorder } from "../ingest/answers/answer-join.js";
import { type PlannedLine, storeLines } from "./store-lines.js";

export interface ChunkStore {
  store: Store;
  runId: string;
  dataset: string;
  /** Nothing of the run is stored yet, so no earlier input error can be left to clear. */
  newRun: boolean;
  /** Records the dataset hash of the bytes read so far. */
  recordHash: () => Promise<void>;
  record: ErrorRecorder;
}

/**
 * Stores a chunk's planned lines and its input errors (with the lines the store refused
 * added to `errors`); returns the lines stored, whose jobs may now be enqueued.
 */
export async function storeChunk(
  target: ChunkStore,
  planned: readonly PlannedLine[],
  errors: InputErrorSummary[],
): Promise<PlannedLine[]> {
  const { store, runId, dataset } = target;
  // Recorded before the lines are stored, so that it covers every stored line even if
  // this process dies next: a resume then checks exactly the bytes its samples came from.
  await target.recordHash();
  const { stored, errors: refused } = await storeLines(store, runId, dataset, planned);
  for (const error of refused) target.record(error, errors);
  if (errors.length > 0) await store.insertInputErrors(runId, errors);
  // An earlier attempt may have refused a line this one stored (a last line cut off
  // while the file was being copied): that line is a sample now, not an input error.
  if (!target.newRun) {
    await store.clearInputErrors(
      runId,
      dataset,
      stored.map((line) => line.line),
    );
  }
  return stored;
}
