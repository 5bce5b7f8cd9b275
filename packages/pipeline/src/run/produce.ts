import {
  InputError,
  type InputErrorSummary,
  printable,
  type RunSpec,
  resultKeyOfJob,
  type Sample,
  type ScoreJob,
} from "@assay/core";
import type { Transport } from "@assay/queue";
import type { ScorerRegistry } from "@assay/scorers";
import { resultKeyString, type Store } from "@assay/store";
import { dropRollups, runnerOf } from "@assay/store/reports";
import { readDataset } from "../ingest/read-dataset.js";
import { createRouter } from "../routing/router.js";
import { planLine } from "./plan.js";
import { planPairJobs } from "./plan-pairs.js";
import type { ProduceProgress } from "./progress.js";
import { type PlannedLine, storeLines } from "./store-lines.js";

export interface ProduceOptions {
  store: Store;
  transport: Transport;
  registry: ScorerRegistry;
  dataset: string;
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
  /** Aborting stops reading the dataset; the plan is then left unrecorded (incomplete). */
  signal?: AbortSignal;
  onProgress?: (progress: ProduceProgress) => void;
}

export interface ProduceResult extends ProduceProgress {
  /** First input errors, for the caller to show. */
  errorExamples: InputErrorSummary[];
}

/**
 * Streams a dataset into the store and the transport: lines are routed, checked, stored
 * and planned in chunks, and only results not stored yet are enqueued. Both `assay run`
 * and `assay produce` use it; the transport decides where the jobs go. Every line ends up
 * stored whole or as an input error naming it; none stops the run. Memory stays bounded:
 * duplicate ids are found through the store, not a set of every id.
 */
export async function produce(options: ProduceOptions): Promise<ProduceResult> {
  const { store, transport, registry, dataset, spec, runId } = options;
  const chunkSize = options.chunkSize ?? 500;
  const route = createRouter(spec);
  // A resumed run may gain samples and results, so its rollups would be out of date:
  // reports read its raw rows until it completes again (completeRun rewrites them).
  if (options.newRun !== true) await dropRollups(runnerOf(store.driver), runId);
  const progress: ProduceProgress = {
    lines: 0,
    samples: 0,
    planned: 0,
    enqueued: 0,
    skipped: 0,
    inputErrors: 0,
  };
  const errorExamples: InputErrorSummary[] = [];
  let chunk: Sample[][] = [];
  let chunkSamples = 0;
  let errors: InputErrorSummary[] = [];

  /** Counts an input error and returns it as the row to store. */
  const recordError = (error: InputError): InputErrorSummary => {
    // Escaped once more, so that no message or field can be what the store refuses.
    const row = {
      file: error.file,
      line: error.line,
      field: printable(error.field),
      message: printable(error.reason),
    };
    if (errorExamples.length < 10) errorExamples.push(row);
    progress.inputErrors += 1;
    return row;
  };

  // A line with a sample that cannot be routed or has bad scorers of its own is an input error.
  const planOrReport = (samples: Sample[]): PlannedLine | undefined => {
    try {
      const jobs = [
        ...planLine(runId, samples, route, registry, dataset, spec.generator_usage),
        ...planPairJobs(runId, samples, spec, registry),
      ];
      return { line: (samples[0] as Sample).line, samples, jobs };
    } catch (error) {
      if (!(error instanceof InputError)) throw error;
      errors.push(recordError(error));
      return undefined;
    }
  };

  // Stores one chunk's lines and enqueues their missing jobs. Chunks are stored one at a
  // time, in file order (so the first line to use an id keeps it), but the next chunk is
  // read and planned while this one is stored.
  const storeAndEnqueue = async (
    planned: PlannedLine[],
    lineErrors: InputErrorSummary[],
  ): Promise<void> => {
    const { stored: lines, errors: refused } = await storeLines(store, runId, dataset, planned);
    for (const error of refused) lineErrors.push(recordError(error));
    if (lineErrors.length > 0) await store.insertInputErrors(runId, lineErrors);
    if (lines.length === 0) return;
    let samples = 0;
    let total = 0;
    for (const line of lines) {
      samples += line.samples.length;
      total += line.jobs.length;
    }
    const stored = options.newRun
      ? NOTHING_STORED
      : await store.storedResultKeys(runId, [
          // A pairwise judge's jobs are stored under their pair's id, not a candidate's.
          ...new Set(lines.flatMap((line) => line.jobs.map((job) => job.sample.id))),
        ]);
    const jobs = lines.flatMap((line) => line.jobs).filter((job) => !stored.has(keyOf(job)));
    progress.samples += samples;
    progress.planned += total;
    progress.skipped += total - jobs.length;
    await transport.enqueue(jobs);
    progress.enqueued += jobs.length;
    options.onProgress?.({ ...progress });
  };

  let storing: Promise<void> = Promise.resolve();
  const flush = async (): Promise<void> => {
    const planned = chunk.map(planOrReport).filter((entry) => entry !== undefined);
    const lineErrors = errors;
    chunk = [];
    chunkSamples = 0;
    errors = [];
    await storing;
    storing = storeAndEnqueue(planned, lineErrors);
    storing.catch(() => {}); // awaited by the next flush or below: never unhandled
  };

  const readOptions = {
    checkDuplicateIds: false,
    ...(options.maxLineBytes !== undefined && { maxLineBytes: options.maxLineBytes }),
    ...(options.parseThreads !== undefined && { parseThreads: options.parseThreads }),
  };
  for await (const event of readDataset(dataset, readOptions)) {
    if (options.signal?.aborted === true) break;
    progress.lines += 1;
    if (event.kind === "error") errors.push(recordError(event.error));
    else {
      chunk.push(event.samples);
      chunkSamples += event.samples.length;
    }
    if (chunkSamples >= chunkSize || errors.length >= chunkSize) await flush();
  }
  if (options.signal?.aborted === true) {
    await storing;
    return { ...progress, errorExamples };
  }
  await flush();
  await storing;
  await store.setPlanned(runId, progress.planned);
  return { ...progress, errorExamples };
}

const NOTHING_STORED: ReadonlySet<string> = new Set();

function keyOf(job: ScoreJob): string {
  return resultKeyString(resultKeyOfJob(job));
}
