import type { RunSpec, RunSummary } from "@assay/core";
import { DEFAULT_RUN_CONCURRENCY } from "@assay/core/run-defaults";
import { LocalTransport } from "@assay/queue/local";
import type { ScorerRegistry } from "@assay/scorers";
import type { SelectionTotals } from "@assay/selection";
import type { Store } from "@assay/store";
import type { AnswerSources } from "../ingest/answers/answer-sources.js";
import type { OpenDataset } from "../ingest/open-dataset.js";
import { completeRun } from "./complete-run.js";
import { type ProduceResult, produce } from "./produce.js";
import type { ProduceProgress } from "./progress.js";
import { createBatchScoreHandler, createScoreHandler } from "./score-handler.js";

export interface RunLocalOptions {
  store: Store;
  registry: ScorerRegistry;
  /** A path, or the dataset the caller opened before registering the run. */
  dataset: string | OpenDataset;
  spec: RunSpec;
  runId: string;
  /** Jobs in flight at once. Default `DEFAULT_RUN_CONCURRENCY`. */
  concurrency?: number;
  /** Time limit of a job whose spec set none, in ms (see `ScoreHandlerOptions`). */
  jobTimeoutMs?: number;
  maxLineBytes?: number;
  /**
   * Threads that parse dataset lines; see `ReadDatasetOptions.parseThreads`. Default: none
   * on the embedded store, else as `readDataset` chooses. The embedded store runs on this
   * thread, which its queries keep busy more than half the time, so a parse thread saves
   * little time there, while it costs ~40 MB of resident memory and copies every parsed
   * line across threads (measured on bench:local's 100,000 samples).
   */
  parseThreads?: number;
  /** Samples stored and planned together. Default 2000. */
  chunkSize?: number;
  /** Answers joined from batch outputs; see `ProduceOptions.answers`. */
  answers?: AnswerSources;
  /** The run was just created: nothing of it can be stored yet. */
  newRun?: boolean;
  onProgress?: (progress: RunProgress) => void;
  /**
   * Aborting stops the run early: no more lines are read, jobs in flight finish, queued
   * ones are dropped, everything scored is flushed. A rerun with the same id resumes.
   */
  signal?: AbortSignal;
  /** See `ProduceOptions.maxInputErrors`. */
  maxInputErrors?: number;
}

export interface RunProgress extends ProduceProgress {
  /** Results stored in this invocation. */
  stored: number;
  /**
   * The whole dataset is read and planned: `planned` is the run's total and `skipped +
   * stored` of it are done. Before, `planned` counts only the lines read so far.
   */
  planKnown: boolean;
}

export interface RunOutcome {
  produced: ProduceResult;
  stored: number;
  summary: RunSummary;
  /** True when every planned result row exists. */
  complete: boolean;
  /**
   * True when `signal` stopped the run before it was complete, or reading stopped at
   * the input error limit (`produced.stoppedAtInputErrors`).
   */
  interrupted: boolean;
  /** Best-of-N accuracy, when the spec asks for selection and the run is complete. */
  selection: SelectionTotals | undefined;
}

/**
 * Rows the result writer stores in one statement. Large: in one process, fewer statements
 * is the main lever on throughput.
 */
const WRITER_BATCH = 2000;

/**
 * CPU jobs handed to the score handler at once (`LocalTransport.consumeBatches`): a
 * writer batch, so a batch's rows are one `addAll` and usually one statement. bench:local's
 * 1M samples on Postgres, 3 runs each, median CPU per sample: 15.4 µs at 200, 15.8 at 500,
 * 15.0 at 2,000.
 */
const CPU_BATCH = WRITER_BATCH;

/**
 * `assay run`: produce, score and store in one process with the in-process transport.
 * Rerunning with the same run id scores only what is missing.
 */
export async function runLocal(options: RunLocalOptions): Promise<RunOutcome> {
  const { store, registry, runId } = options;
  const concurrency = options.concurrency ?? DEFAULT_RUN_CONCURRENCY;
  const parseThreads = options.parseThreads ?? (store.kind === "pglite" ? 0 : undefined);
  const transport = new LocalTransport({ highWaterMark: Math.max(4096, concurrency * 2) });
  const writer = store.createResultWriter({ maxBatch: WRITER_BATCH, maxDelayMs: 20 });
  let stored = 0;
  let latest: ProduceProgress | undefined;
  let planKnown = false;
  const report = (): void => {
    if (latest !== undefined) options.onProgress?.({ ...latest, stored, planKnown });
  };
  const handlerOptions = {
    registry,
    writer,
    store,
    // One unstorable result must not stop the run: the local transport would.
    dropUnstorable: true,
    ...(options.jobTimeoutMs !== undefined && { jobTimeoutMs: options.jobTimeoutMs }),
    onStored: () => {
      stored += 1;
    },
  };
  const consumers = [
    // Deterministic jobs score in microseconds: handed over in batches, they cost a
    // promise per batch rather than a few per job (see `CPU_BATCH`).
    transport.consumeBatches("cpu", createBatchScoreHandler(handlerOptions), {
      concurrency,
      maxBatch: CPU_BATCH,
    }),
    // Model jobs one by one: the verifier gathers its own batches from the jobs in flight.
    transport.consume("gpu", createScoreHandler(handlerOptions), { concurrency }),
  ];
  const ticker = setInterval(report, 250);
  // Stop taking queued jobs at once; what is in flight still finishes and is stored.
  const stopConsumers = (): void => {
    for (const consumer of consumers) void consumer.stop();
  };
  options.signal?.addEventListener("abort", stopConsumers, { once: true });

  try {
    const produced = await produce({
      store,
      transport,
      registry,
      dataset: options.dataset,
      spec: options.spec,
      runId,
      ...(options.maxLineBytes !== undefined && { maxLineBytes: options.maxLineBytes }),
      ...(parseThreads !== undefined && { parseThreads }),
      chunkSize: options.chunkSize ?? 2000,
      newRun: options.newRun === true,
      ...(options.answers !== undefined && { answers: options.answers }),
      ...(options.signal !== undefined && { signal: options.signal }),
      ...(options.maxInputErrors !== undefined && { maxInputErrors: options.maxInputErrors }),
      onProgress: (progress) => {
        latest = progress;
      },
    });
    latest = produced;
    const aborted = options.signal?.aborted === true;
    // Stopped at the error limit: what was read is scored, the run is left to resume.
    const interrupted = aborted || produced.stoppedAtInputErrors !== undefined;
    planKnown = !interrupted;
    report();
    await (aborted ? Promise.all(consumers.map((consumer) => consumer.stop())) : transport.drain());
    await writer.close();
    report();
    // The run's own process: it waits for any other completer rather than leave it.
    const completion = interrupted ? undefined : await completeRun(store, runId, { wait: true });
    const completed = completion?.state === "completed" ? completion : undefined;
    const summary = await store.runSummary(runId);
    return {
      produced,
      stored,
      summary,
      complete: completed !== undefined,
      interrupted,
      selection: completed?.selection,
    };
  } finally {
    options.signal?.removeEventListener("abort", stopConsumers);
    clearInterval(ticker);
    await transport.close();
  }
}
