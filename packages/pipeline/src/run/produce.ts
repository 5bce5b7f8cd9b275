import {
  type AnswerJoinCounts,
  InputError,
  type InputErrorSummary,
  printable,
  type RunSpec,
  type Sample,
  type ScoreJob,
} from "@assay/core";
import type { Transport } from "@assay/queue";
import type { ScorerRegistry } from "@assay/scorers";
import { lockAnswerJoin, type Store } from "@assay/store";
import { dropRollups, runnerOf } from "@assay/store/reports";
import { AnswerJoin, JOINED_USAGE } from "../ingest/answers/answer-join.js";
import type { AnswerSources } from "../ingest/answers/answer-sources.js";
import { DatasetHash } from "../ingest/dataset-hash.js";
import { type OpenDataset, openDataset } from "../ingest/open-dataset.js";
import { DEFAULT_MAX_LINE_BYTES, readDatasetBatches } from "../ingest/read-dataset.js";
import { createRouter } from "../routing/router.js";
import { BoundedTasks } from "./bounded-tasks.js";
import { planLine } from "./plan.js";
import { planPairJobs } from "./plan-pairs.js";
import type { ProduceProgress } from "./progress.js";
import { type PlannedLine, storeLines } from "./store-lines.js";

export interface ProduceOptions {
  store: Store;
  transport: Transport;
  registry: ScorerRegistry;
  /** A path, or the dataset the caller opened before registering the run (`openDataset`). */
  dataset: string | OpenDataset;
  spec: RunSpec;
  runId: string;
  maxLineBytes?: number;
  /** Samples stored and planned together. Default 500. */
  chunkSize?: number;
  /**
   * The run was just created, so nothing of it is stored yet: skip looking up stored
   * results (one query per chunk). Default false, which is always correct.
   */
  newRun?: boolean;
  /** Threads that parse dataset lines; see `ReadDatasetOptions.parseThreads`. */
  parseThreads?: number;
  /**
   * Chunks being stored and enqueued while the next ones are read. Stores still run one
   * chunk at a time, in file order; enqueuing overlaps. Memory grows with it, never with
   * the dataset. Default 1: each chunk is enqueued before the next is read.
   */
  chunksInFlight?: number;
  /**
   * The dataset is a reference whose answers come from these batch outputs, joined on
   * custom id (see `AnswerJoin`). Default: the answers are in the dataset.
   */
  answers?: AnswerSources;
  /** Aborting stops reading the dataset; the plan is then left unrecorded (incomplete). */
  signal?: AbortSignal;
  onProgress?: (progress: ProduceProgress) => void;
}

export interface ProduceResult extends ProduceProgress {
  /** First input errors, for the caller to show. */
  errorExamples: InputErrorSummary[];
  /** What the answer join came to, when `answers` was given and the read completed. */
  answers?: AnswerJoinCounts;
}

/**
 * Streams a dataset into the store and the transport: lines are routed, checked, stored
 * and planned in chunks, and only results not stored yet are enqueued. Both `assay run`
 * and `assay produce` use it; the transport decides where the jobs go. Every line ends up
 * stored whole or as an input error naming it; none stops the run. Memory stays bounded:
 * duplicate ids are found through the store, not a set of every id.
 */
export async function produce(options: ProduceOptions): Promise<ProduceResult> {
  if (typeof options.dataset !== "string") return produceOpen(options, options.dataset);
  const opened = await openDataset(options.dataset);
  try {
    return await produceOpen(options, opened);
  } finally {
    await opened.close();
  }
}

async function produceOpen(options: ProduceOptions, opened: OpenDataset): Promise<ProduceResult> {
  if (options.answers === undefined) return produceRead(options, opened);
  // Staging starts by clearing the run's staged answers: a second process joining the
  // same run would clear the first one's under it. It is refused at once instead.
  const lock = await lockAnswerJoin(options.store.driver, options.runId);
  try {
    return await produceRead(options, opened);
  } finally {
    await lock.release();
  }
}

async function produceRead(options: ProduceOptions, opened: OpenDataset): Promise<ProduceResult> {
  const { store, transport, registry, spec, runId } = options;
  const dataset = opened.path;
  const chunkSize = options.chunkSize ?? 500;
  const route = createRouter(spec);
  // A resumed run may gain samples and results, so its rollups would be out of date:
  // reports read its raw rows until it completes again (completeRun rewrites them).
  if (options.newRun !== true) await dropRollups(runnerOf(store.driver), runId);
  const progress: ProduceProgress = {
    bytesRead: 0,
    datasetBytes: opened.bytes,
    lines: 0,
    samples: 0,
    planned: 0,
    enqueued: 0,
    skipped: 0,
    inputErrors: 0,
  };
  const errorExamples: InputErrorSummary[] = [];
  // Hashed as it is read, for the run's record of its dataset (see registerRun).
  const hash = new DatasetHash();
  const recordHash = () => store.recordDatasetRead(runId, hash.bytes, hash.hex());
  const inFlight = new BoundedTasks(options.chunksInFlight ?? 1);
  // Chunks are stored one after another in file order: of two lines with one id, the
  // later is the duplicate, and that is only known once the earlier line is stored.
  let storing: Promise<unknown> = Promise.resolve();
  let chunk: Sample[][] = [];
  let chunkSamples = 0;
  let errors: InputErrorSummary[] = [];

  const recordError = (error: InputError, into: InputErrorSummary[]): void => {
    // Escaped once more, so that no message or field can be what the store refuses.
    const row = {
      file: error.file,
      line: error.line,
      field: printable(error.field),
      message: printable(error.reason),
    };
    into.push(row);
    if (errorExamples.length < 10) errorExamples.push(row);
    progress.inputErrors += 1;
  };

  // Answers joined from batch outputs are staged first (see AnswerJoin).
  const generatorUsage = options.answers === undefined ? spec.generator_usage : JOINED_USAGE;
  const join =
    options.answers === undefined
      ? undefined
      : await AnswerJoin.start(
          store,
          runId,
          options.answers,
          recordError,
          options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES,
        );

  // A line with a sample that cannot be routed or has bad scorers of its own is an input error.
  const planOrReport = (samples: Sample[]): PlannedLine | undefined => {
    try {
      const jobs = [
        ...planLine(runId, samples, route, registry, dataset, generatorUsage),
        ...planPairJobs(runId, samples, spec, registry),
      ];
      return { line: (samples[0] as Sample).line, samples, jobs };
    } catch (error) {
      if (!(error instanceof InputError)) throw error;
      recordError(error, errors);
      return undefined;
    }
  };

  const storeChunk = async (
    planned: PlannedLine[],
    chunkErrors: InputErrorSummary[],
  ): Promise<PlannedLine[]> => {
    // Recorded before the lines are stored, so that it covers every stored line even if
    // this process dies next: a resume then checks exactly the bytes its samples came from.
    await recordHash();
    const { stored, errors: refused } = await storeLines(store, runId, dataset, planned);
    for (const error of refused) recordError(error, chunkErrors);
    if (chunkErrors.length > 0) await store.insertInputErrors(runId, chunkErrors);
    // An earlier attempt may have refused a line this one stored (a last line cut off
    // while the file was being copied): that line is a sample now, not an input error.
    if (options.newRun !== true) {
      await store.clearInputErrors(
        runId,
        dataset,
        stored.map((line) => line.line),
      );
    }
    return stored;
  };

  let reopened = false;
  const enqueueLines = async (lines: PlannedLine[]): Promise<void> => {
    if (lines.length === 0) return;
    let samples = 0;
    let total = 0;
    for (const line of lines) {
      samples += line.samples.length;
      total += line.jobs.length;
    }
    const planned: ScoreJob[] = [];
    for (const line of lines) for (const job of line.jobs) planned.push(job);
    // A new run has nothing stored: every planned job goes, without a key built for each.
    const jobs = options.newRun ? planned : await store.missingJobs(runId, planned);
    progress.samples += samples;
    progress.planned += total;
    progress.skipped += total - jobs.length;
    // Results of a run that finished are missing again: it finishes anew once they are
    // stored (completeRun records when), not at the time it first finished.
    if (jobs.length > 0 && options.newRun !== true && !reopened) {
      reopened = true;
      await store.reopenRun(runId);
    }
    await transport.enqueue(jobs);
    progress.enqueued += jobs.length;
    options.onProgress?.({ ...progress });
  };

  const flush = async (): Promise<void> => {
    const lines = chunk;
    chunk = [];
    chunkSamples = 0;
    const answered = join === undefined ? lines : await join.fill(lines, dataset, errors);
    const planned = answered.map(planOrReport).filter((entry) => entry !== undefined);
    const chunkErrors = errors;
    errors = [];
    const stored = storing.then(() => storeChunk(planned, chunkErrors));
    storing = stored;
    // A failure here is thrown by the task below; if that task never starts, an earlier
    // failure is being thrown instead. Either way it is no unhandled rejection.
    stored.catch(() => {});
    await inFlight.add(async () => enqueueLines(await stored));
  };

  const readOptions = {
    checkDuplicateIds: false,
    ...(options.spec.fields !== undefined && { fields: options.spec.fields }),
    answersJoined: join !== undefined,
    ...(options.maxLineBytes !== undefined && { maxLineBytes: options.maxLineBytes }),
    ...(options.parseThreads !== undefined && { parseThreads: options.parseThreads }),
    onRead: (bytes: Uint8Array) => {
      hash.update(bytes);
      progress.bytesRead += bytes.length;
    },
  };
  try {
    reading: for await (const events of readDatasetBatches(opened, readOptions)) {
      for (const event of events) {
        if (options.signal?.aborted === true) break reading;
        progress.lines += 1;
        if (event.kind === "error") recordError(event.error, errors);
        else {
          chunk.push(event.samples);
          chunkSamples += event.samples.length;
        }
        if (chunkSamples >= chunkSize || errors.length >= chunkSize) await flush();
      }
      // Reported as the file is read, not only per chunk: a slow first chunk (a model
      // loading, a large store insert) still shows the read moving.
      options.onProgress?.({ ...progress });
    }
    if (options.signal?.aborted !== true) await flush();
  } catch (error) {
    // Let the chunks in flight end before the caller closes the store under them.
    await inFlight.settle().catch(() => {});
    throw error;
  }
  await inFlight.settle();
  if (options.signal?.aborted === true) return { ...progress, errorExamples };
  await recordHash();
  const answers = await join?.finish();
  await store.setPlanned(runId, progress.planned);
  return { ...progress, errorExamples, ...(answers !== undefined && { answers }) };
}
