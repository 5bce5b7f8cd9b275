import { InputError, type InputErrorSummary, type RunSpec, type Sample } from "@assay/core";
import type { Transport } from "@assay/queue";
import type { ScorerRegistry } from "@assay/scorers";
import type { Store } from "@assay/store";
import { readDataset } from "../ingest/read-dataset.js";
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
  onProgress?: (progress: ProduceProgress) => void;
}

export interface ProduceResult extends ProduceProgress {
  /** First input errors, for the caller to show. */
  errorExamples: InputErrorSummary[];
}

/**
 * Streams a dataset into the store and the transport: samples are stored, routed and
 * planned in chunks, and only results not stored yet are enqueued. Both `assay run` and
 * `assay produce` use it; the transport decides where the jobs go.
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

  const flush = async (): Promise<void> => {
    if (errors.length > 0) await store.insertInputErrors(runId, errors);
    errors = [];
    if (chunk.length === 0) return;
    const samples = chunk;
    chunk = [];
    const jobs = [];
    const accepted: Sample[] = [];
    const stored = await store.storedResultKeys(
      runId,
      samples.map((sample) => sample.id),
    );
    for (const sample of samples) {
      const planned = planRouted(sample);
      if (planned === undefined) continue;
      accepted.push(sample);
      jobs.push(...planned.jobs);
      progress.planned += planned.planned;
      progress.skipped += planned.planned - planned.jobs.length;
    }
    if (errors.length > 0) await store.insertInputErrors(runId, errors);
    errors = [];
    await store.insertSamples(runId, accepted);
    progress.samples += accepted.length;
    await transport.enqueue(jobs);
    progress.enqueued += jobs.length;
    options.onProgress?.({ ...progress });

    function planRouted(sample: Sample) {
      const target = route(sample);
      if (target === undefined) {
        recordError(unrouted(dataset, sample));
        return undefined;
      }
      try {
        return planSample(runId, sample, target, stored, registry, dataset);
      } catch (error) {
        if (!(error instanceof InputError)) throw error;
        recordError(error);
        return undefined;
      }
    }
  };

  const readOptions =
    options.maxLineBytes === undefined ? {} : { maxLineBytes: options.maxLineBytes };
  for await (const event of readDataset(dataset, readOptions)) {
    progress.lines += 1;
    if (event.kind === "error") recordError(event.error);
    else chunk.push(...event.samples);
    if (chunk.length >= chunkSize || errors.length >= chunkSize) await flush();
  }
  await flush();
  await store.setPlanned(runId, progress.planned);
  return { ...progress, errorExamples };
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
