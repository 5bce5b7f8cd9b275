import type { AnswerJoinCounts, InputErrorSummary, RunSpec, Sample } from "@assay/core";
import { DEFAULT_MAX_INPUT_ERRORS } from "@assay/core/input-formats";
import type { ScorerRegistry } from "@assay/scorers";
import type { Store } from "@assay/store";
import { AnswerJoin, JOINED_USAGE } from "../ingest/answers/answer-join.js";
import type { AnswerSources } from "../ingest/answers/answer-sources.js";
import { DatasetHash } from "../ingest/dataset-hash.js";
import { type OpenDataset, openDataset } from "../ingest/open-dataset.js";
import { DEFAULT_MAX_LINE_BYTES, readDatasetBatches } from "../ingest/read-dataset.js";
import { BoundedTasks } from "./bounded-tasks.js";
import { reopenRunPlan } from "./complete-run.js";
import { type JobQueue, LineEnqueuer } from "./enqueue-lines.js";
import { InFileOrder } from "./in-file-order.js";
import { InputErrorLog } from "./input-error-log.js";
import { linePlanner, planChunk } from "./plan-chunk.js";
import type { ProduceProgress } from "./progress.js";
import { storeChunk } from "./store-chunk.js";

export interface ProduceOptions {
  store: Store;
  /** Where the jobs of results not stored yet go: only its `enqueue` is used. */
  transport: JobQueue;
  registry: ScorerRegistry;
  /** A path, or the dataset the caller opened before registering the run (`openDataset`). */
  dataset: string | OpenDataset;
  spec: RunSpec;
  runId: string;
  maxLineBytes?: number;
  /** Samples stored and planned together. Default `DEFAULT_PRODUCE_CHUNK_SIZE`. */
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
  /**
   * Input errors (the dataset's and the answer files') after which reading stops, as an
   * abort does: what was read is stored, the plan is left unrecorded, and a rerun with
   * the same id resumes. A file written in a shape other than expected otherwise fills
   * the store with one error row per line. Default DEFAULT_MAX_INPUT_ERRORS.
   */
  maxInputErrors?: number;
  onProgress?: (progress: ProduceProgress) => void;
}

export interface ProduceResult extends ProduceProgress {
  /** First input errors, for the caller to show. */
  errorExamples: InputErrorSummary[];
  /** What the answer join came to, when `answers` was given and the read completed. */
  answers?: AnswerJoinCounts;
  /** Set when reading stopped at `maxInputErrors`: the limit it reached. */
  stoppedAtInputErrors?: number;
}

export { DEFAULT_MAX_INPUT_ERRORS };

/**
 * Streams a dataset into the store and the transport: lines are routed, checked, stored
 * and planned in chunks, and only results not stored yet are enqueued. `assay run`,
 * `assay produce` and `assay retry` use it; `transport` decides where the jobs go. Every line ends up
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
  const lock = await options.store.lockAnswerJoin(options.runId);
  try {
    return await produceRead(options, opened);
  } finally {
    await lock.release();
  }
}

/** Samples stored and planned together by `produce` (and `assay produce`) unless told. */
export const DEFAULT_PRODUCE_CHUNK_SIZE = 500;

/** Lines read and not planned yet, with the input errors found among them. */
interface Chunk {
  lines: Sample[][];
  samples: number;
  errors: InputErrorSummary[];
}

const emptyChunk = (): Chunk => ({ lines: [], samples: 0, errors: [] });

async function produceRead(options: ProduceOptions, opened: OpenDataset): Promise<ProduceResult> {
  const { store, registry, spec, runId } = options;
  const dataset = opened.path;
  const newRun = options.newRun === true;
  const chunkSize = options.chunkSize ?? DEFAULT_PRODUCE_CHUNK_SIZE;
  // Answers joined from batch outputs count their tokens their own way (see AnswerJoin).
  const generatorUsage = options.answers === undefined ? spec.generator_usage : JOINED_USAGE;
  const planJobs = linePlanner({ runId, spec, registry, dataset, generatorUsage });
  // A resumed run may gain samples and results: its plan is made again, and its rollups
  // would be out of date, so reports read its raw rows until it completes again.
  if (!newRun) await reopenRunPlan(store, runId);
  const read = { bytesRead: 0, datasetBytes: opened.bytes, lines: 0 };
  const errorLog = new InputErrorLog();
  const enqueuer = new LineEnqueuer({ store, runId, newRun, queue: options.transport });
  const progress = (): ProduceProgress => ({
    ...read,
    ...enqueuer.counts,
    inputErrors: errorLog.count,
  });
  // Hashed as it is read, for the run's record of its dataset (see createOrResumeRun).
  const hash = new DatasetHash();
  const recordHash = () => store.recordDatasetRead(runId, hash.bytes, hash.hex());
  const target = { store, runId, dataset, newRun, recordHash, record: errorLog.record };
  // Answers joined from batch outputs are staged first (see AnswerJoin).
  const join =
    options.answers === undefined
      ? undefined
      : await AnswerJoin.start(
          store,
          runId,
          options.answers,
          errorLog.record,
          options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES,
        );
  // Chunks are stored one after another in file order: of two lines with one id, the
  // later is the duplicate, and that is only known once the earlier line is stored.
  const storing = new InFileOrder();
  const inFlight = new BoundedTasks(options.chunksInFlight ?? 1);

  const flush = async ({ lines, errors }: Chunk): Promise<void> => {
    const answered = join === undefined ? lines : await join.fill(lines, dataset, errors);
    const { planned, refused } = planChunk(answered, planJobs);
    for (const error of refused) errorLog.record(error, errors);
    const stored = storing.run(() => storeChunk(target, planned, errors));
    // A failure to store is thrown by the task below, or by the next `add` or `settle`.
    await inFlight.add(async () => {
      const storedLines = await stored;
      if (storedLines.length === 0) return;
      await enqueuer.enqueue(storedLines);
      options.onProgress?.(progress());
    });
  };

  const readOptions = {
    checkDuplicateIds: false,
    ...(options.spec.fields !== undefined && { fields: options.spec.fields }),
    answersJoined: join !== undefined,
    ...(options.maxLineBytes !== undefined && { maxLineBytes: options.maxLineBytes }),
    ...(options.parseThreads !== undefined && { parseThreads: options.parseThreads }),
    onRead: (bytes: Uint8Array) => {
      hash.update(bytes);
      read.bytesRead += bytes.length;
    },
  };
  const maxInputErrors = options.maxInputErrors ?? DEFAULT_MAX_INPUT_ERRORS;
  const tooManyErrors = () => errorLog.count >= maxInputErrors;
  let chunk = emptyChunk();
  try {
    reading: for await (const events of readDatasetBatches(opened, readOptions)) {
      for (const event of events) {
        if (options.signal?.aborted === true || tooManyErrors()) break reading;
        read.lines += 1;
        if (event.kind === "error") errorLog.record(event.error, chunk.errors);
        else {
          chunk.lines.push(event.samples);
          chunk.samples += event.samples.length;
        }
        if (chunk.samples >= chunkSize || chunk.errors.length >= chunkSize) {
          const full = chunk;
          chunk = emptyChunk();
          await flush(full);
        }
      }
      // Reported as the file is read, not only per chunk: a slow first chunk (a model
      // loading, a large store insert) still shows the read moving.
      options.onProgress?.(progress());
    }
    // Stopped at the error limit, what was read is stored all the same.
    if (options.signal?.aborted !== true) await flush(chunk);
  } catch (error) {
    // Let the chunks in flight end before the caller closes the store under them.
    await inFlight.settle().catch(() => {});
    throw error;
  }
  await inFlight.settle();
  const { examples: errorExamples } = errorLog;
  if (options.signal?.aborted === true) return { ...progress(), errorExamples };
  if (tooManyErrors()) {
    return { ...progress(), errorExamples, stoppedAtInputErrors: maxInputErrors };
  }
  await recordHash();
  const answers = await join?.finish();
  await store.setPlanned(runId, {
    results: enqueuer.counts.planned,
    modelResults: enqueuer.plannedModelJobs,
  });
  return { ...progress(), errorExamples, ...(answers !== undefined && { answers }) };
}
