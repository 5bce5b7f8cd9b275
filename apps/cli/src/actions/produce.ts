import type { RunSpec } from "@assay/core";
import type { DatasetFormat } from "@assay/pipeline";
import {
  type AnswerSources,
  completeRun,
  type OpenDataset,
  openDataset,
  produce,
  registerRun,
} from "@assay/pipeline";
import { checkSpecScorers, type ScorerRegistry } from "@assay/scorers";
import type { AnswersFlags } from "../answers-options.js";
import { answerSources } from "../answers-options.js";
import type { DistributedFlags } from "../distributed/distributed-options.js";
import { openQueues, openSharedStore } from "../distributed/open-services.js";
import { pasteableCommand } from "../distributed/pasteable-command.js";
import { produceCommand, produceFailure } from "../distributed/service-failure.js";
import { unfinishedJobs, waitForRun } from "../distributed/wait-for-run.js";
import { completedExitCode, type InputErrorsFlags } from "../input-errors-exit.js";
import { writeErr } from "../output.js";
import { printSummary } from "../print-summary.js";
import { createProgressView } from "../progress/progress-view.js";
import { defaultRunId } from "../run-id.js";
import { scorerRegistry } from "../scorer-registry.js";
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
const PIPELINE = { chunkSize: 500, chunksInFlight: 3 } as const;

export async function produceAction(dataset: string, flags: ProduceFlags): Promise<number> {
  const answers = answerSources(flags); // bad answer flags are bad usage, before anything loads
  const registry = await scorerRegistry({});
  const spec = await specFor(flags.spec, registry);
  const quiet = flags.quiet === true || flags.json === true;
  const log = quiet ? () => {} : (line: string) => writeErr(`${line}\n`);
  // A model that only the GPU workers have cannot be checked here; one that is, is.
  try {
    await checkSpecScorers(spec, flags.spec ?? "(default spec)", registry, {
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
    return await produceOpenDataset(opened, flags, spec, registry, log, answers);
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
): Promise<number> {
  const dataset = opened.path;
  const runId = flags.runId ?? defaultRunId(dataset === "-" ? "stdin" : dataset);
  const store = await openSharedStore(flags);
  try {
    // A producer stops on a Redis outage, saying how to resume, rather than wait for it.
    const transport = await openQueues(flags, { failOnOutage: true });
    try {
      const { created, notes } = await registerRun({
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
      log(
        `${created ? "Producing run" : "Resuming run"} ${runId}; resume with: ${produceCommand(dataset, runId, flags)}`,
      );
      const reading = createProgressView({
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
        ...(answers !== undefined && { answers }),
        ...PIPELINE,
        onProgress: (progress) =>
          reading.update({
            read: { bytes: progress.bytesRead, of: progress.datasetBytes },
            enqueued: progress.enqueued,
            inputErrors: progress.inputErrors,
          }),
      }).finally(() => reading.stop());
      log(
        `Enqueued ${produced.enqueued} jobs for ${produced.samples} samples (${produced.planned} results planned, ` +
          `${produced.skipped} already stored, ${produced.inputErrors} input errors).`,
      );
      if (flags.wait === true) {
        const view = createProgressView({ quiet: flags.quiet === true, initial: {} });
        await waitForRun(store, runId, produced.planned, {
          onTick: (done) =>
            view.update({ done, planned: produced.planned, inputErrors: produced.inputErrors }),
          unfinishedJobs: () => unfinishedJobs(transport),
        }).finally(() => view.stop());
        const selection = await completeRun(store, runId, spec);
        const summary = await store.runSummary(runId);
        view.finish(summary);
        printSummary(summary, selection, flags.json === true);
      } else {
        log(`Follow it with: ${pasteableCommand(["status", runId], flags)}`);
      }
      return completedExitCode(produced.inputErrors, flags);
    } catch (error) {
      throw produceFailure(error, dataset, runId, flags);
    } finally {
      // Closing may fail on the same outage; the error above is the one to report.
      await transport.close().catch(() => {});
    }
  } catch (error) {
    throw produceFailure(error, dataset, runId, flags);
  } finally {
    await store.close().catch(() => {});
  }
}
