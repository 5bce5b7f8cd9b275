export type { AnswerSources } from "./ingest/answers/answer-sources.js";
export { checkAnswerFiles } from "./ingest/answers/check-answer-files.js";
export { assertFieldsInFirstRecord } from "./ingest/first-record.js";
export {
  DATASET_FORMATS,
  type DatasetFormat,
  datasetFormat,
} from "./ingest/formats/dataset-format.js";
export { type OpenDataset, openDataset } from "./ingest/open-dataset.js";
export { type DatasetEvent, DEFAULT_MAX_LINE_BYTES, readDataset } from "./ingest/read-dataset.js";
export { type RawLine, readLines } from "./ingest/read-lines.js";
export { createLogger, type Logger } from "./logger.js";
export * from "./report.js";
export { createRouter, type Route } from "./routing/router.js";
export { checkDataset, type DatasetCheck } from "./run/check-dataset.js";
export {
  abandonRun,
  type CompleteRunOptions,
  completeRun,
  type RunAbandonment,
  type RunCompletion,
} from "./run/complete-run.js";
export {
  type CreatedOrResumedRun,
  type CreateOrResumeRunOptions,
  createOrResumeRun,
} from "./run/create-or-resume-run.js";
export type { JobQueue } from "./run/enqueue-lines.js";
export { modelQueuesOf } from "./run/model-queues.js";
export { planSample } from "./run/plan.js";
export {
  DEFAULT_MAX_INPUT_ERRORS,
  DEFAULT_PRODUCE_CHUNK_SIZE,
  type ProduceOptions,
  type ProduceResult,
  produce,
} from "./run/produce.js";
export {
  HEARTBEAT_MS,
  PRODUCER_SILENT_S,
  ProducerHeartbeat,
  type ProducerHeartbeatOptions,
} from "./run/producer-heartbeat.js";
export type { ProduceProgress } from "./run/progress.js";
export { RunChangedError } from "./run/run-changed-error.js";
export {
  type RunLocalOptions,
  type RunOutcome,
  type RunProgress,
  runLocal,
} from "./run/run-local.js";
export {
  createBatchScoreHandler,
  createScoreHandler,
  type ScoreHandlerOptions,
} from "./run/score-handler.js";
export { type SelectForRunOptions, selectForRun } from "./run/select-run.js";
export { DEFAULT_SPEC } from "./spec/default-spec.js";
export { loadSpec, parseSpec, validateSpec } from "./spec/load-spec.js";
