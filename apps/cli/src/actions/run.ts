import { describeInputError, redactUrl, shellWord } from "@assay/core";
import type { DatasetFormat } from "@assay/pipeline";
import {
  checkAnswerFiles,
  checkDataset,
  createOrResumeRun,
  type OpenDataset,
  openDataset,
  type RunProgress,
  runLocal,
} from "@assay/pipeline";
import { checkSpecScorers, type ScorerRegistry } from "@assay/scorers";
import type { AnswersFlags } from "../answers-options.js";
import { answerSources } from "../answers-options.js";
import { CliExit, ExitCode } from "../exit-codes.js";
import { HeldLines } from "../held-lines.js";
import {
  completedExitCode,
  type InputErrorsFlags,
  inputErrorLimitLine,
} from "../input-errors-exit.js";
import { lostDatabase } from "../lost-connection.js";
import type { DeviceName } from "../options.js";
import { writeErr } from "../output.js";
import { printSummary } from "../print-summary.js";
import { downloadOption } from "../progress/download-view.js";
import type { ProgressSnapshot } from "../progress/progress-meter.js";
import { createProgressView } from "../progress/progress-view.js";
import { resumeWords } from "../resume-words.js";
import { defaultRunId } from "../run-id.js";
import { scorerRegistry } from "../scorer-registry.js";
import { shutdownSignal } from "../shutdown-signal.js";
import { specFor } from "../spec-option.js";
import { describeStore, openStoreFor, storeTarget } from "../store-option.js";
import { assertUsableDataset } from "../usable-dataset.js";
import type { VerifierFlags } from "../verifier-flags.js";
import { describeVerifierSettings, verifierTuning } from "../verifier-tuning.js";

export interface RunFlags extends AnswersFlags, InputErrorsFlags {
  spec?: string;
  runId?: string;
  concurrency: number;
  /** Seconds a job may take (the spec's `job_timeout_s` wins). */
  jobTimeout: number;
  strict?: boolean;
  json?: boolean;
  db?: string;
  dbSchema?: string;
  maxLineBytes: number;
  format?: DatasetFormat;
  quiet?: boolean;
  allowChangedDataset?: boolean;
  allowChangedSpec?: boolean;
  device?: DeviceName;
  threads?: number;
  /** The verifier flags typed on the command line (see `verifierFlagsGiven`). */
  verifier: VerifierFlags;
}

export async function runAction(dataset: string, flags: RunFlags): Promise<number> {
  answerSources(flags); // bad answer flags are bad usage, before anything loads
  const settings = new HeldLines((line) => {
    if (flags.quiet !== true) writeErr(`${line}\n`);
  });
  const registry = await scorerRegistry({
    ...(flags.device !== undefined && { device: flags.device }),
    ...(flags.threads !== undefined && { threads: flags.threads }),
    ...verifierTuning(flags.verifier),
    ...downloadOption(flags.quiet === true),
    onLoad: (model) => settings.add(describeVerifierSettings(model)),
  });
  // Closed on every path: the spec check may already have loaded a model (and its threads).
  try {
    return await runWithRegistry(dataset, flags, registry, settings);
  } finally {
    await registry.close();
  }
}

async function runWithRegistry(
  dataset: string,
  flags: RunFlags,
  registry: ScorerRegistry,
  settings: HeldLines,
): Promise<number> {
  const spec = await specFor(flags.spec, registry);
  // Model-dependent args (score tokens, head overrides) are refused here, before the run
  // exists, rather than as one error row per sample.
  const specFile = flags.spec ?? "(default spec)";
  await checkSpecScorers(spec, specFile, registry);
  // Held open from the check to the end of the run: a file deleted or replaced meanwhile
  // cannot leave a run registered without the dataset that was checked.
  const opened = await openDataset(dataset, {
    ...(flags.format !== undefined && { format: flags.format }),
  });
  try {
    // A spec whose fields miss the dataset is one refusal, even with --strict.
    await assertUsableDataset(opened, flags.maxLineBytes, spec, specFile, {
      answersJoined: flags.answers !== undefined,
    });
    if (flags.strict === true) await refuseInvalidDataset(opened, flags, registry, spec);
    // An answers file the join could take nothing from is refused before the run exists.
    const answers = answerSources(flags);
    if (answers !== undefined) await checkAnswerFiles(answers, flags.maxLineBytes);
    // Checked: say what each verifier model runs with (a refused run printed only its refusal).
    settings.release();
    return await runOpenDataset(opened, flags, registry, spec);
  } finally {
    await opened.close();
  }
}

async function runOpenDataset(
  opened: OpenDataset,
  flags: RunFlags,
  registry: ScorerRegistry,
  spec: Awaited<ReturnType<typeof specFor>>,
): Promise<number> {
  const dataset = opened.path;
  const runId = flags.runId ?? defaultRunId(dataset === "-" ? "stdin" : dataset);
  const store = await openStoreFor(flags.db, "assay run", { schema: flags.dbSchema });
  const log = flags.quiet === true ? () => {} : (line: string) => writeErr(`${line}\n`);
  try {
    const { created, notes } = await createOrResumeRun({
      store,
      runId,
      dataset: opened,
      spec,
      transport: "local",
      allowChangedDataset: flags.allowChangedDataset === true,
      allowChangedSpec: flags.allowChangedSpec === true,
    });
    // Printed even with --quiet: each says the run is not what it was.
    for (const note of notes) writeErr(`${note}\n`);
    log(
      `${created ? "Run" : "Resuming run"} ${runId} (${describeStore(storeTarget(flags.db))}); resume with --run-id ${runId}`,
    );
    const view = createProgressView({
      quiet: flags.quiet === true,
      initial: { read: { bytes: 0, of: opened.bytes }, done: 0, scored: 0, inputErrors: 0 },
    });
    // Ctrl-C / SIGTERM: stop reading, finish what is in flight, store it, say how to resume.
    const shutdown = shutdownSignal(() => view.note("Stopping: storing what is scored..."));
    const outcome = await runLocal({
      store,
      registry,
      dataset: opened,
      spec,
      runId,
      concurrency: flags.concurrency,
      jobTimeoutMs: flags.jobTimeout * 1000,
      maxLineBytes: flags.maxLineBytes,
      newRun: created,
      ...answersOption(flags),
      ...(flags.maxInputErrors !== undefined && { maxInputErrors: flags.maxInputErrors }),
      onProgress: (progress) => view.update(runSnapshot(progress)),
      signal: shutdown.signal,
    }).finally(() => {
      view.stop();
      shutdown.dispose();
    });
    view.finish(outcome.summary);
    const limit = outcome.produced.stoppedAtInputErrors;
    if (limit !== undefined) {
      printSummary(outcome.summary, outcome.selection, flags.json === true);
      // Printed even with --quiet: it is why the run stopped.
      const resume = `assay run ${runCommandTail(opened.path, runId, flags)}`;
      writeErr(`${inputErrorLimitLine(limit, resume)}\n`);
      return ExitCode.inputErrors;
    }
    if (outcome.interrupted) {
      log(
        `Interrupted: ${outcome.summary.results} results are stored. Resume with --run-id ${runId}.`,
      );
    }

    if (outcome.produced.skipped > 0) {
      log(`Skipped ${outcome.produced.skipped} results already stored by an earlier attempt.`);
    }
    printSummary(outcome.summary, outcome.selection, flags.json === true);
    return completedExitCode(outcome.produced.inputErrors, flags);
  } catch (error) {
    throw lostDatabase(
      error,
      storeTarget(flags.db).databaseUrl,
      `rerun with --run-id ${runId}: only the results not stored are scored`,
    );
  } finally {
    await store.close();
  }
}

/** The arguments of the `assay run` that resumes this one, its files as absolute paths. */
function runCommandTail(dataset: string, runId: string, flags: RunFlags): string {
  const store: string[] = [];
  // A password in a database URL is not printed (`***`; put it back to paste).
  if (flags.db !== undefined) store.push("--db", redactUrl(flags.db));
  if (flags.dbSchema !== undefined) store.push("--db-schema", flags.dbSchema);
  return resumeWords(dataset, runId, flags, store).map(shellWord).join(" ");
}

function answersOption(flags: RunFlags) {
  const answers = answerSources(flags);
  return answers === undefined ? {} : { answers };
}

/** Results done count those an earlier attempt stored; the rate counts this run's only. */
function runSnapshot(progress: RunProgress): ProgressSnapshot {
  return {
    read: { bytes: progress.bytesRead, of: progress.datasetBytes },
    done: progress.skipped + progress.stored,
    ...(progress.planKnown && { planned: progress.planned }),
    scored: progress.stored,
    inputErrors: progress.inputErrors,
  };
}

async function refuseInvalidDataset(
  dataset: OpenDataset,
  flags: RunFlags,
  registry: ScorerRegistry,
  spec: Awaited<ReturnType<typeof specFor>>,
): Promise<void> {
  // With --answers, the reference rows are checked (their answers are joined later).
  const check = await checkDataset(dataset, spec, registry, {
    maxLineBytes: flags.maxLineBytes,
    answersJoined: flags.answers !== undefined,
  });
  if (check.errorCount === 0) return;
  const lines = check.errors.map((error) => `  ${describeInputError(error)}`);
  const more = check.errorCount - check.errors.length;
  if (more > 0) lines.push(`  ... and ${more} more`);
  throw new CliExit(
    ExitCode.refused,
    `--strict: refused ${dataset.path}: ${check.errorCount} invalid lines, nothing was scored\n${lines.join("\n")}`,
  );
}
