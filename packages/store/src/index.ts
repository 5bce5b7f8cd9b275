export {
  BatchedWriter,
  type BatchedWriterOptions,
  type BatchedWriterStats,
  type RowFailures,
  type WriteObservation,
} from "./batched-writer.js";
export { isConnectionLost } from "./connection-lost.js";
export { isDataError } from "./data-error.js";
export { DiskFullError, MIN_FREE_BYTES, PRUNE_MIN_FREE_BYTES } from "./disk-room.js";
export { UnmigratedStoreError } from "./migration-check.js";
export { type OpenStoreOptions, openStore } from "./open-store.js";
export {
  type PrunedRun,
  PruneInProgressError,
  type PruneOutcome,
  type PruneSelection,
  type SkippedRun,
} from "./prune/prune-runs.js";
export { type AnswerJoinLock, RunInUseError } from "./queries/answer-join-lock.js";
export type {
  DuplicateAnswer,
  StagedAnswer,
  StagingOutcome,
} from "./queries/answer-staging.js";
export {
  EXPORTED_TABLES,
  type ExportedRow,
  type ExportedTable,
  exportedColumns,
} from "./queries/export-tables.js";
export type { JoinedAnswer } from "./queries/joined-answer.js";
export type {
  ModelQueue,
  ProducerRecord,
  ProducerState,
  ProducerStatus,
} from "./queries/run-producers.js";
export type { PlannedResults } from "./queries/runs.js";
export type {
  ChooseSelections,
  ReplaceSelectionsOptions,
  ScoreLookup,
  SelectionPass,
} from "./queries/selections.js";
export { RejectedRowError } from "./rejected-row-error.js";
export type { BaselinePin, PinnedBaseline } from "./reports/rollups/baselines.js";
export type { SelectionStats } from "./reports/selection-stats.js";
export { RAW_TABLES, type RawTable } from "./run-partitions.js";
export { schemasHoldingRun } from "./run-schemas.js";
export * as schema from "./schema.js";
export type { StoreKind } from "./sql-runner.js";
export type {
  ResultWriter,
  RunCompletionLock,
  RunOrigin,
  RunRecord,
  ScoreWriter,
  StartRunInput,
  Store,
} from "./store.js";
export { inspectStoreFolder, StoreFolderError, type StoreFolderState } from "./store-folder.js";
export { describeHolder, type LockHolder, StoreInUseError } from "./store-lock.js";
export { writeIsolating } from "./write-isolating.js";
