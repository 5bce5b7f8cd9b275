import type {
  AnswerJoinCounts,
  CandidateQuery,
  ExportRow,
  InputErrorSummary,
  JobResult,
  PriceTable,
  ReportBundle,
  RunSummary,
  Sample,
  SampleRecord,
  ScoreRow,
} from "@assay/core";
import { type ResultKey, resultKeyOfJob, type ScoreJob } from "@assay/core";
import { BatchedWriter, type BatchedWriterOptions } from "./batched-writer.js";
import type { BulkTarget } from "./bulk/bulk-statement.js";
import { pingDatabase } from "./connection-lost.js";
import { inTransaction } from "./in-transaction.js";
import { refreshPlannerStatistics } from "./planner-statistics.js";
import { importPrices, type PriceImport } from "./prices/import-prices.js";
import { type PruneOutcome, type PruneSelection, pruneRuns } from "./prune/prune-runs.js";
import { refusePrunedRun } from "./prune/refuse-pruned.js";
import { answerJoinCounts } from "./queries/answer-join-counts.js";
import { type AnswerJoinLock, lockAnswerJoin } from "./queries/answer-join-lock.js";
import {
  clearStagedAnswers,
  type StagedAnswer,
  type StagingOutcome,
  stageAnswers,
  stagedFailures,
  takeStagedAnswers,
  unmatchedAnswers,
  writeAnswerJoin,
} from "./queries/answer-staging.js";
import { exportScores } from "./queries/export.js";
import { type ExportedRow, type ExportedTable, exportTableRows } from "./queries/export-tables.js";
import { type JoinedAnswer, joinedAnswer } from "./queries/joined-answer.js";
import { writeResults } from "./queries/results.js";
import { lockRunCompletion } from "./queries/run-completion-lock.js";
import type { ProducerRecord, ProducerStatus } from "./queries/run-producers.js";
import * as producers from "./queries/run-producers.js";
import type { AnyPgDatabase, PlannedResults } from "./queries/runs.js";
import * as runs from "./queries/runs.js";
import {
  clearInputErrors,
  deleteSamples,
  insertInputErrors,
  insertSamples,
  sampleLines,
} from "./queries/samples.js";
import { countResults, missingJobs, writeScores } from "./queries/scores.js";
import {
  type ReplaceSelectionsOptions,
  replaceSelections,
  type SelectionPass,
} from "./queries/selections.js";
import { runSummary } from "./queries/summary.js";
import {
  type AblationCandidateRow,
  ablationCandidatePages,
} from "./reports/ablation-candidates.js";
import { pairScores } from "./reports/pair-scores.js";
import { type BundleOptions, reportBundle } from "./reports/report-bundle.js";
import { metadataPath } from "./reports/report-options.js";
import {
  type BaselinePin,
  listBaselines,
  type PinnedBaseline,
  pinBaseline,
  unpinBaseline,
} from "./reports/rollups/baselines.js";
import { comparisonCounted } from "./reports/rollups/comparison-rollups.js";
import { hasRollups } from "./reports/rollups/read-rollups.js";
import { sliceRollupsMissing } from "./reports/rollups/slice-rollups.js";
import { dropRollups, writeRollups } from "./reports/rollups/write-rollups.js";
import { sampleRecord } from "./reports/sample-record.js";
import { type SelectionStats, selectionStats } from "./reports/selection-stats.js";
import type { SqlRunner, StoreKind } from "./sql-runner.js";
import type {
  ResultWriter,
  RunCompletionLock,
  RunOrigin,
  RunRecord,
  ScoreWriter,
  StartRunInput,
  Store,
} from "./store.js";
import type { StoreDriver } from "./store-driver.js";

/** What differs between drivers; everything else is shared SQL. */
export interface StoreParts {
  driver: StoreDriver;
  runner: SqlRunner;
  db: AnyPgDatabase;
  applyMigrations(): Promise<void>;
  /** Throws a ConfigError naming `assay migrate` when migrations are missing. */
  assertMigrated(): Promise<void>;
  /** Has the server cancel the statements running on this store's connections. */
  cancelQueries(): Promise<void>;
  close(): Promise<void>;
}

export class SqlStore implements Store {
  readonly #parts: StoreParts;
  /** Memoized migration check, so only the first operation pays for it. */
  #ready: Promise<void> | undefined;

  constructor(parts: StoreParts, migrated: boolean) {
    this.#parts = parts;
    if (migrated) this.#ready = Promise.resolve();
  }

  get kind(): StoreKind {
    return this.#parts.driver.kind;
  }

  /** The client behind a store opened by `openStore`: what `driverOf` hands to tools. */
  static driverOf(store: Store): StoreDriver {
    if (!(store instanceof SqlStore)) throw new TypeError("Expected a store from openStore");
    return store.#parts.driver;
  }

  async migrate(): Promise<void> {
    await this.#parts.applyMigrations();
    this.#ready = Promise.resolve();
  }

  close(): Promise<void> {
    return this.#parts.close();
  }

  assertMigrated(): Promise<void> {
    return this.#whenReady();
  }

  cancelQueries(): Promise<void> {
    return this.#parts.cancelQueries();
  }

  async ping(): Promise<void> {
    await pingDatabase(await this.#driver());
  }

  async startRun(input: StartRunInput): Promise<{ created: boolean }> {
    return runs.startRun(await this.#db(), input);
  }

  async setRunOrigin(
    runId: string,
    made: { dataset: string; spec: unknown; origin: RunOrigin },
  ): Promise<void> {
    await runs.setRunOrigin(await this.#db(), runId, made);
  }

  async recordDatasetRead(runId: string, bytes: number, sha256: string): Promise<void> {
    await runs.recordDatasetRead(await this.#db(), runId, bytes, sha256);
  }

  async getRun(id: string): Promise<RunRecord | undefined> {
    return runs.getRun(await this.#db(), id);
  }

  async setPlanned(runId: string, planned: PlannedResults): Promise<void> {
    await runs.setPlanned(await this.#db(), runId, planned);
  }

  async clearPlan(runId: string): Promise<void> {
    await runs.clearPlan(await this.#db(), runId);
  }

  async recordProducer(record: ProducerRecord): Promise<void> {
    await producers.recordProducer(await this.#db(), record);
  }

  async getProducer(runId: string): Promise<ProducerStatus | undefined> {
    return producers.getProducer(await this.#db(), runId);
  }

  async finishRun(runId: string): Promise<boolean> {
    return runs.finishRun(await this.#db(), runId);
  }

  async abandonRun(runId: string): Promise<boolean> {
    return runs.abandonRun(await this.#db(), runId);
  }

  async reopenRun(runId: string): Promise<void> {
    await runs.reopenRun(await this.#db(), runId);
  }

  async lockRunCompletion(
    runId: string,
    options: { wait: boolean },
  ): Promise<RunCompletionLock | null> {
    return lockRunCompletion(await this.#driver(), runId, options);
  }

  async insertSamples(runId: string, samples: readonly Sample[]): Promise<number> {
    return insertSamples(await this.#bulk(), runId, samples);
  }

  async sampleLines(runId: string, sampleIds: readonly string[]): Promise<Map<string, number>> {
    return sampleLines(await this.#runner(), runId, sampleIds);
  }

  async deleteSamples(
    runId: string,
    samples: readonly Pick<Sample, "id" | "line">[],
  ): Promise<void> {
    await deleteSamples(await this.#runner(), runId, samples);
  }

  async insertInputErrors(runId: string, errors: readonly InputErrorSummary[]): Promise<number> {
    return insertInputErrors(await this.#bulk(), runId, errors);
  }

  async clearInputErrors(runId: string, file: string, lines: readonly number[]): Promise<void> {
    await clearInputErrors(await this.#runner(), runId, file, lines);
  }

  missingJobs(runId: string, jobs: readonly ScoreJob[]): Promise<ScoreJob[]>;
  missingJobs<J>(runId: string, jobs: readonly J[], keyOf: (job: J) => ResultKey): Promise<J[]>;
  async missingJobs<J>(
    runId: string,
    jobs: readonly J[],
    keyOf = resultKeyOfJob as (job: J) => ResultKey,
  ): Promise<J[]> {
    return missingJobs(await this.#runner(), runId, jobs, keyOf);
  }

  async writeScores(rows: readonly ScoreRow[]): Promise<number> {
    return writeScores(await this.#bulk(), rows);
  }

  createScoreWriter(options?: BatchedWriterOptions): ScoreWriter {
    return new BatchedWriter<ScoreRow>((rows) => this.writeScores(rows), options);
  }

  async writeResults(results: readonly JobResult[]): Promise<number> {
    return writeResults(await this.#bulk(), results);
  }

  createResultWriter(options?: BatchedWriterOptions<number>): ResultWriter {
    return new BatchedWriter<JobResult, number>((results) => this.writeResults(results), options);
  }

  async countResults(runId: string): Promise<number> {
    return countResults(await this.#runner(), runId);
  }

  async runSummary(runId: string): Promise<RunSummary> {
    return runSummary(await this.#runner(), runId);
  }

  async *exportScores(runId: string): AsyncGenerator<ExportRow> {
    const runner = await this.#runner();
    await refusePrunedRun(runner, runId, "exported");
    yield* exportScores(runner, runId);
  }

  async *exportRows(runId: string, table: ExportedTable): AsyncGenerator<ExportedRow> {
    const runner = await this.#runner();
    await refusePrunedRun(runner, runId, "exported");
    yield* exportTableRows(runner, table, runId);
  }

  async replaceSelections(
    runId: string,
    query: CandidateQuery,
    startPass: SelectionPass,
    options?: ReplaceSelectionsOptions,
  ): Promise<number> {
    await refusePrunedRun(await this.#runner(), runId, "selected again");
    return replaceSelections(await this.#driver(), runId, query, startPass, options);
  }

  async lockAnswerJoin(runId: string): Promise<AnswerJoinLock> {
    return lockAnswerJoin(await this.#driver(), runId);
  }

  async clearStagedAnswers(runId: string): Promise<void> {
    await clearStagedAnswers(await this.#driver(), runId);
  }

  async stageAnswers(runId: string, answers: readonly StagedAnswer[]): Promise<StagingOutcome> {
    return stageAnswers(await this.#driver(), runId, answers);
  }

  async stagedFailures(runId: string, after: string, limit: number): Promise<StagedAnswer[]> {
    return stagedFailures(await this.#driver(), runId, after, limit);
  }

  async takeStagedAnswers(
    runId: string,
    customIds: readonly string[],
  ): Promise<Map<string, StagedAnswer>> {
    return takeStagedAnswers(await this.#driver(), runId, customIds);
  }

  async unmatchedAnswers(runId: string, after: string, limit: number): Promise<StagedAnswer[]> {
    return unmatchedAnswers(await this.#driver(), runId, after, limit);
  }

  async answerJoinCounts(runId: string): Promise<AnswerJoinCounts | undefined> {
    return answerJoinCounts(await this.#runner(), runId);
  }

  async writeAnswerJoin(runId: string, counts: AnswerJoinCounts, idPrefix: string): Promise<void> {
    await writeAnswerJoin(await this.#driver(), runId, counts, idPrefix);
  }

  async joinedAnswer(
    runId: string,
    taskId: string,
    candidateIndex: number,
  ): Promise<JoinedAnswer | undefined> {
    return joinedAnswer(await this.#runner(), runId, taskId, candidateIndex);
  }

  async reportBundle(runId: string, options?: BundleOptions): Promise<ReportBundle> {
    return reportBundle(await this.#runner(), runId, options);
  }

  async sampleRecord(runId: string, sampleId: string): Promise<SampleRecord | undefined> {
    const runner = await this.#runner();
    await refusePrunedRun(runner, runId, "shown sample by sample");
    return sampleRecord(runner, runId, sampleId);
  }

  async *ablationCandidatePages(
    runId: string,
    query: CandidateQuery,
    tasksPerPage?: number,
  ): AsyncGenerator<AblationCandidateRow[]> {
    const runner = await this.#runner();
    await refusePrunedRun(runner, runId, "read candidate by candidate");
    yield* ablationCandidatePages(runner, runId, query, tasksPerPage);
  }

  async pairScores(
    runId: string,
    scorer: string,
    sampleIds: readonly string[],
  ): Promise<Map<string, number | null>> {
    return pairScores(await this.#runner(), runId, scorer, sampleIds);
  }

  async selectionStats(runId: string): Promise<SelectionStats | undefined> {
    return (await selectionStats(await this.#runner(), [runId])).get(runId);
  }

  async hasRollups(runId: string): Promise<boolean> {
    return hasRollups(await this.#runner(), runId);
  }

  async writeRollups(runId: string): Promise<void> {
    await refusePrunedRun(await this.#runner(), runId, "rolled up again");
    await writeRollups(await this.#driver(), runId);
  }

  async dropRollups(runId: string): Promise<void> {
    const runner = await this.#runner();
    await refusePrunedRun(runner, runId, "reopened");
    await dropRollups(runner, runId);
  }

  async pinBaseline(runId: string): Promise<BaselinePin> {
    return inTransaction(await this.#driver(), (runner) => pinBaseline(runner, runId));
  }

  async comparisonCounted(runId: string, baselineRunId: string): Promise<boolean> {
    return comparisonCounted(await this.#runner(), runId, baselineRunId);
  }

  async listBaselines(): Promise<PinnedBaseline[]> {
    return listBaselines(await this.#runner());
  }

  async unpinBaseline(runId: string): Promise<string | null> {
    return unpinBaseline(await this.#runner(), runId);
  }

  async pruneRuns(selection: PruneSelection, options: { dryRun: boolean }): Promise<PruneOutcome> {
    return pruneRuns(await this.#driver(), selection, options);
  }

  async refusePrunedRun(runId: string, what: string): Promise<void> {
    await refusePrunedRun(await this.#runner(), runId, what);
  }

  async rawSliceReason(runId: string, by: string): Promise<string | undefined> {
    return sliceRollupsMissing(await this.#runner(), runId, metadataPath(by));
  }

  async refreshPlannerStatistics(tables: "written" | "derived", runId: string): Promise<void> {
    await refreshPlannerStatistics(await this.#driver(), tables, runId);
  }

  async importPrices(
    table: PriceTable,
    options: PriceImport,
  ): Promise<{ version: number; models: number }> {
    return importPrices(await this.#driver(), table, options);
  }

  async #driver(): Promise<StoreDriver> {
    await this.#whenReady();
    return this.#parts.driver;
  }

  async #runner(): Promise<SqlRunner> {
    await this.#whenReady();
    return this.#parts.runner;
  }

  /** Bulk writes of many rows use COPY, on either store. */
  async #bulk(): Promise<BulkTarget> {
    const { driver, runner } = this.#parts;
    await this.#whenReady();
    return driver.kind === "postgres"
      ? { runner, pool: driver.pool }
      : { runner, pool: undefined, pglite: driver.client };
  }

  async #db(): Promise<AnyPgDatabase> {
    await this.#whenReady();
    return this.#parts.db;
  }

  #whenReady(): Promise<void> {
    this.#ready ??= this.#parts.assertMigrated().catch((error: unknown) => {
      this.#ready = undefined; // check again next time: someone may run `assay migrate`
      throw error;
    });
    return this.#ready;
  }
}
