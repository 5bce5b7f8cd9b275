import type { RunSpec } from "@assay/core";
import type { DatasetFormat } from "@assay/pipeline";
import {
  type AnswerSources,
  checkAnswerFiles,
  completeRun,
  createOrResumeRun,
  DEFAULT_PRODUCE_CHUNK_SIZE,
  modelQueuesOf,
  type OpenDataset,
  openDataset,
  type ProduceProgress,
  ProducerHeartbeat,
  produce,
} from "@assay/pipeline";
import { EnqueueAbortedError } from "@assay/queue";
import { checkSpecScorers, type ScorerRegistry } from "@assay/scorers";
import type { ModelQueue } from "@assay/store";
import type { AnswersFlags } from "../answers-options.js";
import { answerSources } from "../answers-options.js";
import type { DistributedFlags } from "../distributed/distributed-options.js";
import { openQueues, openSharedStore } from "../distributed/open-services.js";
import { pasteableCommand } from "../distributed/pasteable-command.js";
import { produceCommand, produceFailure } from "../distributed/service-failure.js";
import { unfinishedJobs, waitForRun } from "../distributed/wait-for-run.js";
import { watchForWorkers } from "../distributed/worker-watch.js";
import { ExitCode } from "../exit-codes.js";
import {
  completedExitCode,
  type InputErrorsFlags,
  inputErrorLimitLine,
} from "../input-errors-exit.js";
import { writeErr } from "../output.js";
import { printSummary } from "../print-summary.js";
import { createProgressView, type ProgressView } from "../progress/progress-view.js";
import { defaultRunId } from "../run-id.js";
import { scorerRegistry } from "../scorer-registry.js";
import { selectionOf } from "../selection-of.js";
import { shutdownSignal } from "../shutdown-signal.js";
import { specFor } from "../spec-option.js";
import { assertUsableDataset } from "../usable-dataset.js";

export interface ProduceFlags extends DistributedFlags, AnswersFlags, InputErrorsFlags {
  spec?: string;
  runId?: string;
  wait?: boolean;
  json?: boolean;
  maxLineBytes: number;
  format?: DatasetFormat;
  quiet?: boolean;
  allowChangedDataset?: boolean;
  allowChangedSpec?: boolean;
}

// Redis, Postgres and the reading of the next chunk overlap: a few chunks are stored or
// enqueued while the next is read, which keeps every service busy and memory bounded.
const PIPELINE = { chunkSize: DEFAULT_PRODUCE_CHUNK_SIZE, chunksInFlight: 3 } as const;

export async function produceAction(dataset: string, flags: ProduceFlags): Promise<number> {
  const answers = answerSources(flags); // bad answer flags are bad usage, before anything loads
  const registry = await scorerRegistry({});
  const spec = await specFor(flags.spec, registry);
  const quiet = flags.quiet === true || flags.json === true;
  const log = quiet ? () => {} : (line: string) => writeErr(`${line}\n`);
  const specFile = flags.spec ?? "(default spec)";
  // Before anything else: a model spelled so that no worker would serve its queue.
  const modelQueues = modelQueuesOf(spec, registry, specFile);
  // A model that only the GPU workers have cannot be checked here; one that is, is.
  try {
    await checkSpecScorers(spec, specFile, registry, {
      onUnavailable: (where, error) =>
        log(
          `Not checked here: ${where}: ${error.message}; the workers check it when they load it.`,
        ),
    });
  } finally {
    // Producing scores nothing: release whatever model the check loaded.
    await registry.close();
  }
  // Held open from the check to the end of the read: a file deleted or replaced meanwhile
  // cannot leave a run registered without the dataset that was checked.
  const opened = await openDataset(dataset, {
    ...(flags.format !== undefined && { format: flags.format }),
  });
  try {
    await assertUsableDataset(opened, flags.maxLineBytes, spec, flags.spec ?? "(default spec)", {
      answersJoined: answers !== undefined,
    });
    // An answers file the join could take nothing from is refused before the run exists.
    if (answers !== undefined) await checkAnswerFiles(answers, flags.maxLineBytes);
    return await produceOpenDataset(opened, flags, spec, registry, log, answers, modelQueues);
  } finally {
    await opened.close();
  }
}

async function produceOpenDataset(
  opened: OpenDataset,
  flags: ProduceFlags,
  spec: RunSpec,
  registry: ScorerRegistry,
  log: (line: string) => void,
  answers: AnswerSources | undefined,
  modelQueues: ModelQueue[],
): Promise<number> {
  const dataset = opened.path;
  const runId = flags.runId ?? defaultRunId(dataset === "-" ? "stdin" : dataset);
  const resume = produceCommand(dataset, runId, flags);
  const screen = new Screen(flags.quiet === true);
  const store = await openSharedStore(flags);
  // Ctrl-C / SIGTERM (a Kubernetes Job ending): stop reading, store what was read, say how
  // to resume. A second signal exits at once.
  const shutdown = shutdownSignal(() =>
    screen.say("Stopping: storing the lines read, then saying how to resume..."),
  );
  try {
    // A producer stops on a Redis outage, saying how to resume, rather than wait for it.
    const transport = await openQueues(flags, { failOnOutage: true, signal: shutdown.signal });
    try {
      // A read-only replica refuses only writes: ask before the run is registered.
      await transport.assertWritable();
      const { created, notes } = await createOrResumeRun({
        store,
        runId,
        dataset: opened,
        spec,
        transport: "bullmq",
        allowChangedDataset: flags.allowChangedDataset === true,
        allowChangedSpec: flags.allowChangedSpec === true,
      });
      // Printed even with --quiet: each says the run is not what it was.
      for (const note of notes) writeErr(`${note}\n`);
      log(`${created ? "Producing run" : "Resuming run"} ${runId}; resume with: ${resume}`);
      const heartbeat = await ProducerHeartbeat.start({
        store,
        runId,
        queuePrefix: flags.queuePrefix,
        resumeCommand: resume,
        modelQueues,
        bytesTotal: opened.bytes,
      });
      const watch = watchForWorkers(
        () => transport.fedQueues(),
        flags,
        (line) => screen.say(line),
        {
          modelQueues,
        },
      );
      try {
        const code = await streamAndWait();
        return code;
      } catch (error) {
        await heartbeat.end("failed", error instanceof Error ? error.message : String(error));
        throw error;
      } finally {
        watch.stop();
      }

      async function streamAndWait(): Promise<number> {
        let latest: ProduceProgress | undefined;
        screen.view = createProgressView({
          quiet: flags.quiet === true,
          initial: { read: { bytes: 0, of: opened.bytes }, enqueued: 0, inputErrors: 0 },
        });
        const produced = await produce({
          store,
          transport,
          registry,
          dataset: opened,
          spec,
          runId,
          maxLineBytes: flags.maxLineBytes,
          newRun: created,
          signal: shutdown.signal,
          ...(answers !== undefined && { answers }),
          ...(flags.maxInputErrors !== undefined && { maxInputErrors: flags.maxInputErrors }),
          ...PIPELINE,
          onProgress: (progress) => {
            latest = progress;
            heartbeat.update(progress);
            screen.view.update({
              read: { bytes: progress.bytesRead, of: progress.datasetBytes },
              enqueued: progress.enqueued,
              inputErrors: progress.inputErrors,
            });
          },
        }).catch((error: unknown) => {
          // Stopped while waiting for room in a full queue: as stopped between chunks.
          if (shutdown.signal.aborted && error instanceof EnqueueAbortedError) return undefined;
          throw error;
        });
        if (produced === undefined || shutdown.signal.aborted) {
          return stopped(produced ?? latest);
        }
        if (produced.stoppedAtInputErrors !== undefined) {
          await heartbeat.end("stopped", "stopped at the input error limit");
          screen.view.stop();
          // Printed even with --quiet: it is why the run stopped.
          writeErr(`${inputErrorLimitLine(produced.stoppedAtInputErrors, resume)}\n`);
          return ExitCode.inputErrors;
        }
        await heartbeat.end("planned");
        screen.view.stop();
        log(
          `Enqueued ${produced.enqueued} jobs for ${produced.samples} samples (${produced.planned} results planned, ` +
            `${produced.skipped} already stored, ${produced.inputErrors} input errors).`,
        );
        const exitCode = completedExitCode(produced.inputErrors, flags);
        const follow = pasteableCommand(["status", runId], flags);
        if (flags.wait !== true) {
          // The workers may have stored every result before the plan was recorded: then no
          // worker's last result completes the run, and this does.
          if ((await completeRun(store, runId)).state === "completed") {
            log(`Every planned result of run ${runId} is stored: the run is complete.`);
          }
          log(`Follow it with: ${follow}`);
          return exitCode;
        }
        const view = createProgressView({ quiet: flags.quiet === true, initial: {} });
        screen.view = view;
        const finished = await waitForRun(store, runId, produced.planned, {
          onTick: (done) =>
            view.update({ done, planned: produced.planned, inputErrors: produced.inputErrors }),
          unfinishedJobs: () => unfinishedJobs(transport),
          signal: shutdown.signal,
        }).finally(() => view.stop());
        if (!finished) {
          log(`Stopped waiting: the workers go on scoring the run. Follow it with: ${follow}`);
          return exitCode;
        }
        const completion = await completeRun(store, runId, { wait: true });
        const summary = await store.runSummary(runId);
        view.finish(summary);
        printSummary(summary, selectionOf(completion), flags.json === true);
        return exitCode;
      }

      /** A signal stopped the read: what is stored stays, and the resume reads the rest. */
      async function stopped(progress: ProduceProgress | undefined): Promise<number> {
        await heartbeat.end("stopped", "stopped by a signal (Ctrl-C or SIGTERM)");
        screen.view.finish(await store.runSummary(runId));
        const read = progress === undefined ? 0 : progress.bytesRead / Math.max(1, opened.bytes);
        log(
          `Interrupted: ${progress?.samples ?? 0} samples are stored and ${progress?.enqueued ?? 0} ` +
            `jobs enqueued, from the first ${(100 * read).toFixed(1)}% of the dataset; the workers ` +
            `score what is enqueued. Resume with: ${resume}`,
        );
        return (progress?.inputErrors ?? 0) > 0 ? ExitCode.inputErrors : ExitCode.ok;
      }
    } catch (error) {
      throw produceFailure(error, dataset, runId, flags);
    } finally {
      // Closing may fail on the same outage; the error above is the one to report.
      await transport.close().catch(() => {});
    }
  } catch (error) {
    throw produceFailure(error, dataset, runId, flags);
  } finally {
    shutdown.dispose();
    await store.close().catch(() => {});
  }
}

/** Where lines for the operator go: below the progress, or on stderr when there is none. */
class Screen {
  view: ProgressView;
  constructor(private readonly quiet: boolean) {
    this.view = createProgressView({ quiet });
  }
  say(line: string): void {
    if (this.quiet) writeErr(`${line}\n`);
    else this.view.note(line);
  }
}
