import type {
  CandidateQuery,
  ExportRow,
  InputErrorSummary,
  JobResult,
  PriceTable,
  ResultKey,
  RunSummary,
  Sample,
  ScoreJob,
  ScoreRow,
} from "@assay/core";
import type { AnswerJoinStore } from "./answer-join-store.js";
import type { BatchedWriter, BatchedWriterOptions } from "./batched-writer.js";
import type { PriceImport } from "./prices/import-prices.js";
import type { PruneOutcome, PruneSelection } from "./prune/prune-runs.js";
import type { ExportedRow, ExportedTable } from "./queries/export-tables.js";
import type { ProducerRecord, ProducerStatus } from "./queries/run-producers.js";
import type { PlannedResults } from "./queries/runs.js";
import type { ReplaceSelectionsOptions, SelectionPass } from "./queries/selections.js";
import type { ReportStore } from "./report-store.js";
import type { runs } from "./schema.js";
import type { SessionLock } from "./session-lock.js";
import type { StoreKind } from "./sql-runner.js";

export type RunRecord = typeof runs.$inferSelect;

export interface StartRunInput {
  id: string;
  name?: string | null;
  dataset?: string | null;
  /** The resolved run spec, stored as JSON so a report can show what was asked for. */
  spec: unknown;
  transport: string;
  /** What the run is made from; checked when the run resumes. */
  origin?: RunOrigin;
}

/** What a run was made from: its dataset's identity and its spec's hash. */
export interface RunOrigin {
  /** The dataset's path with links resolved. */
  datasetPath: string;
  /** Its size in bytes when opened. */
  datasetBytes: number;
  /** sha256 (hex) of the first `datasetHashedBytes` bytes: what the run has read of it. */
  datasetSha256: string;
  datasetHashedBytes: number;
  /** sha256 (hex) of the resolved spec as JSON with sorted keys. */
  specSha256: string;
}

/** Held while a run is completed; see `Store.lockRunCompletion`. */
export type RunCompletionLock = SessionLock;

export type ScoreWriter = BatchedWriter<ScoreRow>;
/** Resolves each flush to the number of results inserted (duplicates are absorbed). */
export type ResultWriter = BatchedWriter<JobResult, number>;

/**
 * Everything Assay reads from and writes to its database, for either driver. Every read
 * and write checks first that the store's migrations are applied (once, then remembered);
 * the raw client behind it is for benchmarks and tools only (`@assay/store/driver`).
 */
export interface Store extends AnswerJoinStore, ReportStore {
  readonly kind: StoreKind;

  /** Applies pending migrations (what `assay migrate` runs). */
  migrate(): Promise<void>;
  /**
   * Throws a ConfigError naming the database, the schema and `assay migrate` unless every
   * migration is applied: what a command checks before it starts work.
   */
  assertMigrated(): Promise<void>;
  /**
   * Has the server cancel the statements this store is running (an interrupted command),
   * so none runs on after the process exits. The embedded store has nothing to cancel.
   */
  cancelQueries(): Promise<void>;
  close(): Promise<void>;
  /** One round trip to the database: resolves once it answers a query again. */
  ping(): Promise<void>;

  /** Creates the run unless it exists; an existing run is kept as it is (resume). */
  startRun(input: StartRunInput): Promise<{ created: boolean }>;
  getRun(id: string): Promise<RunRecord | undefined>;
  /** Records how many results the run plans, in all and from model calls (GPU pool). */
  setPlanned(runId: string, planned: PlannedResults): Promise<void>;
  /**
   * Replaces what the run is recorded as made from, with its dataset path as given and its
   * resolved spec (a resume allowed to change them).
   */
  setRunOrigin(
    runId: string,
    made: { dataset: string; spec: unknown; origin: RunOrigin },
  ): Promise<void>;
  /**
   * Records the hash of the dataset's first `bytes` bytes, read so far, unless the run
   * already holds the hash of more of it. Called before the lines read are stored, so the
   * hash always covers every stored line.
   */
  recordDatasetRead(runId: string, bytes: number, sha256: string): Promise<void>;
  /**
   * Forgets the run's planned counts: a resumed run plans again, and until it has, no one
   * may take the results stored so far for the whole run.
   */
  clearPlan(runId: string): Promise<void>;
  /**
   * Records where the run's producer is (its read, its heartbeat, the command that resumes
   * it), replacing what an earlier producer of the run recorded.
   */
  recordProducer(record: ProducerRecord): Promise<void>;
  /** The run's producer as it last recorded itself; undefined for a run no producer made. */
  getProducer(runId: string): Promise<ProducerStatus | undefined>;
  /** Sets `finished_at` the first time only; true when this call set it. */
  finishRun(runId: string): Promise<boolean>;
  /**
   * Sets `abandoned_at` the first time only (true when this call set it): the run will never
   * finish. Use `abandonRun` in the pipeline, which refuses a completed run.
   */
  abandonRun(runId: string): Promise<boolean>;
  /**
   * Clears `finished_at`: results of the finished run are missing again and are being put
   * back, so the run finishes anew (and `finishRun` records when) once they are stored.
   */
  reopenRun(runId: string): Promise<void>;
  /**
   * The lock held by whoever completes the run (`completeRun` in the pipeline), so that of
   * several processes that find it complete at once, one does the work. `wait: false`
   * gives null at once while another process holds it. A process that dies frees it.
   */
  lockRunCompletion(runId: string, options: { wait: boolean }): Promise<RunCompletionLock | null>;

  /** Returns how many were new; samples already stored are kept. */
  insertSamples(runId: string, samples: readonly Sample[]): Promise<number>;
  /**
   * The dataset line each stored sample came from. A producer uses it to tell a duplicate
   * id (another line) from a resumed run (the same line) without holding every id in memory.
   */
  sampleLines(runId: string, sampleIds: readonly string[]): Promise<Map<string, number>>;
  /**
   * Deletes samples (and their generator usage) where they were stored from the given
   * line: a line refused after its samples were inserted takes them back.
   */
  deleteSamples(runId: string, samples: readonly Pick<Sample, "id" | "line">[]): Promise<void>;
  insertInputErrors(runId: string, errors: readonly InputErrorSummary[]): Promise<number>;
  /** Deletes the input errors of these lines of `file`, which a later attempt stored. */
  clearInputErrors(runId: string, file: string, lines: readonly number[]): Promise<void>;

  /**
   * The jobs whose result is not stored yet, so that a resumed run plans only the missing
   * work; `keyOf` gives the result key of jobs that are not ScoreJobs. Meant for chunks of
   * about 1,000 jobs.
   */
  missingJobs(runId: string, jobs: readonly ScoreJob[]): Promise<ScoreJob[]>;
  missingJobs<J>(runId: string, jobs: readonly J[], keyOf: (job: J) => ResultKey): Promise<J[]>;
  /** One idempotent statement; returns the number of rows actually inserted. */
  writeScores(rows: readonly ScoreRow[]): Promise<number>;
  createScoreWriter(options?: BatchedWriterOptions): ScoreWriter;
  /**
   * Scores with their truncation and usage rows, in one idempotent statement; returns
   * the number of new score rows.
   */
  writeResults(results: readonly JobResult[]): Promise<number>;
  /** The batched writer the job handler uses: a job is acknowledged once this stored it. */
  createResultWriter(options?: BatchedWriterOptions<number>): ResultWriter;
  countResults(runId: string): Promise<number>;

  /** Throws a NotFoundError when no run has this id. */
  runSummary(runId: string): Promise<RunSummary>;
  /** Every score of the run ordered by (sample, scorer, criterion, repetition), paged. */
  exportScores(runId: string): AsyncIterable<ExportRow>;
  /** Every row of one of the run's other tables, in key order, paged (`assay export --table`). */
  exportRows(runId: string, table: ExportedTable): AsyncIterable<ExportedRow>;

  /**
   * Replaces the run's selections, in one transaction: reads every task's candidates, a
   * fetch at a time (memory holds one fetch), hands each batch of whole tasks to the pass
   * that `startPass` starts and bulk-loads the records it returns. A pass may be undone and
   * started again (see `SelectionPass`). A reader sees the earlier selections or the new
   * ones, never a mix. Returns the number of selections stored.
   */
  replaceSelections(
    runId: string,
    query: CandidateQuery,
    startPass: SelectionPass,
    options?: ReplaceSelectionsOptions,
  ): Promise<number>;

  /**
   * Drops the raw rows (partitions) of the finished, rolled-up runs `selection` names and
   * marks them pruned; with `dryRun`, only says which. Rollups and runs rows stay.
   */
  pruneRuns(selection: PruneSelection, options: { dryRun: boolean }): Promise<PruneOutcome>;
  /** Throws a PrunedRunError naming `what` was asked when the run's raw rows were pruned. */
  refusePrunedRun(runId: string, what: string): Promise<void>;
  /**
   * Why the run's slices by `by` (`metadata.<key>`) must be read from its raw rows, or
   * undefined when its slice rollups hold them: then even a pruned run can be sliced.
   */
  rawSliceReason(runId: string, by: string): Promise<string | undefined>;

  /** Stores a price table as a new version, in one transaction; earlier ones never change. */
  importPrices(
    table: PriceTable,
    options: PriceImport,
  ): Promise<{ version: number; models: number }>;
}
