import {
  InputError,
  type InputErrorSummary,
  type RunSpec,
  type Sample,
  type ScoreJob,
  scorerKey,
} from "@assay/core";
import type { Transport } from "@assay/queue";
import type { ScorerRegistry } from "@assay/scorers";
import { resultKeyString, type Store } from "@assay/store";
import { duplicateIdError, readDataset } from "../ingest/read-dataset.js";
import { createRouter } from "../routing/router.js";
import { planSample } from "./plan.js";
import type { ProduceProgress } from "./progress.js";

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
  /** Aborting stops reading the dataset; the plan is then left unrecorded (incomplete). */
  signal?: AbortSignal;
  onProgress?: (progress: ProduceProgress) => void;
}

export interface ProduceResult extends ProduceProgress {
  /** First input errors, for the caller to show. */
  errorExamples: InputErrorSummary[];
}

interface PlannedChunkSample {
  sample: Sample;
  jobs: ScoreJob[];
}

/**
 * Streams a dataset into the store and the transport: samples are routed, checked, stored
 * and planned in chunks, and only results not stored yet are enqueued. Both `assay run`
 * and `assay produce` use it; the transport decides where the jobs go. Memory stays
 * bounded: duplicate ids are found through the store, not a set of every id.
 */
export async function produce(options: ProduceOptions): Promise<ProduceResult> {
  const { store, transport, registry, dataset, spec, runId } = options;
  const chunkSize = options.chunkSize ?? 500;
  const route = createRouter(spec);
  const progress: ProduceProgress = {
    lines: 0,
    samples: 0,
    planned: 0,
    enqueued: 0,
    skipped: 0,
    inputErrors: 0,
  };
  const errorExamples: InputErrorSummary[] = [];
  let chunk: Sample[] = [];
  let errors: InputErrorSummary[] = [];

  const recordError = (error: InputError): void => {
    const row = { file: error.file, line: error.line, field: error.field, message: error.reason };
    errors.push(row);
    if (errorExamples.length < 10) errorExamples.push(row);
    progress.inputErrors += 1;
  };

  // A sample that cannot be routed or has bad scorers of its own is an input error.
  const planOrReport = (sample: Sample): PlannedChunkSample | undefined => {
    const target = route(sample);
    if (target === undefined) {
      recordError(unrouted(dataset, sample));
      return undefined;
    }
    try {
      return {
        sample,
        jobs: planSample(runId, sample, target, registry, dataset),
      };
    } catch (error) {
      if (!(error instanceof InputError)) throw error;
      recordError(error);
      return undefined;
    }
  };

  const flush = async (): Promise<void> => {
    const planned = chunk.map(planOrReport).filter((entry) => entry !== undefined);
    chunk = [];
    const unique = await dropDuplicateIds(planned);
    if (errors.length > 0) await store.insertInputErrors(runId, errors);
    errors = [];
    if (unique.length === 0) return;
    const stored = options.newRun
      ? NOTHING_STORED
      : await store.storedResultKeys(
          runId,
          unique.map((entry) => entry.sample.id),
        );
    const jobs = unique.flatMap((entry) => entry.jobs).filter((job) => !stored.has(keyOf(job)));
    const total = unique.reduce((sum, entry) => sum + entry.jobs.length, 0);
    progress.samples += unique.length;
    progress.planned += total;
    progress.skipped += total - jobs.length;
    await transport.enqueue(jobs);
    progress.enqueued += jobs.length;
    options.onProgress?.({ ...progress });
  };

  // Stores the samples; one that collides with a sample stored from another line is a
  // duplicate id. The same line means a resumed run, which is fine.
  const dropDuplicateIds = async (planned: PlannedChunkSample[]): Promise<PlannedChunkSample[]> => {
    const samples = planned.map((entry) => entry.sample);
    const inserted = await store.insertSamples(runId, samples);
    if (inserted === samples.length) return planned;
    const lines = await store.sampleLines(
      runId,
      samples.map((sample) => sample.id),
    );
    return planned.filter(({ sample }) => {
      const firstLine = lines.get(sample.id);
      if (firstLine === undefined || firstLine === sample.line) return true;
      recordError(duplicateIdError(dataset, sample.line, sample.id, firstLine));
      return false;
    });
  };

  const readOptions = {
    checkDuplicateIds: false,
    ...(options.maxLineBytes !== undefined && { maxLineBytes: options.maxLineBytes }),
  };
  for await (const event of readDataset(dataset, readOptions)) {
    if (options.signal?.aborted === true) break;
    progress.lines += 1;
    if (event.kind === "error") recordError(event.error);
    else chunk.push(...event.samples);
    if (chunk.length >= chunkSize || errors.length >= chunkSize) await flush();
  }
  if (options.signal?.aborted === true) return { ...progress, errorExamples };
  await flush();
  await store.setPlanned(runId, progress.planned);
  return { ...progress, errorExamples };
}

const NOTHING_STORED: ReadonlySet<string> = new Set();

function keyOf(job: ScoreJob): string {
  return resultKeyString({
    sampleId: job.sample.id,
    scorer: scorerKey(job.scorer),
    criterion: "",
    repetition: 0,
  });
}

function unrouted(file: string, sample: Sample): InputError {
  return new InputError({
    file,
    line: sample.line,
    field: "",
    message:
      "no routing rule matches this sample and the spec has no `default`; add a rule or a default",
  });
}
