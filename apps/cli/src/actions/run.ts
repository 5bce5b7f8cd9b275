import { describeInputError } from "@assay/core";
import { checkDataset, runLocal } from "@assay/pipeline";
import { checkSpecScorers, type ScorerRegistry } from "@assay/scorers";
import type { RunFlags } from "../commands/run.js";
import { CliExit, ExitCode } from "../exit-codes.js";
import { writeErr } from "../output.js";
import { printSummary } from "../print-summary.js";
import { createProgressView } from "../progress.js";
import { defaultRunId } from "../run-id.js";
import { scorerRegistry } from "../scorer-registry.js";
import { shutdownSignal } from "../shutdown-signal.js";
import { specFor } from "../spec-option.js";
import { describeStore, openStoreFor, storeTarget } from "../store-option.js";
import { assertUsableDataset } from "../usable-dataset.js";

export async function runAction(dataset: string, flags: RunFlags): Promise<number> {
  const registry = await scorerRegistry({
    ...(flags.device !== undefined && { device: flags.device }),
    ...(flags.threads !== undefined && { threads: flags.threads }),
  });
  // Closed on every path: the spec check may already have loaded a model (and its threads).
  try {
    return await runWithRegistry(dataset, flags, registry);
  } finally {
    await registry.close();
  }
}

async function runWithRegistry(
  dataset: string,
  flags: RunFlags,
  registry: ScorerRegistry,
): Promise<number> {
  const spec = await specFor(flags.spec, registry);
  // Model-dependent args (score tokens, head overrides) are refused here, before the run
  // exists, rather than as one error row per sample.
  await checkSpecScorers(spec, flags.spec ?? "(default spec)", registry);
  if (flags.strict === true) await refuseInvalidDataset(dataset, flags, registry, spec);
  else await assertUsableDataset(dataset, flags.maxLineBytes);

  const runId = flags.runId ?? defaultRunId(dataset);
  const store = await openStoreFor(flags.db, "assay run");
  const log = flags.quiet === true ? () => {} : (line: string) => writeErr(`${line}\n`);
  try {
    const { created } = await store.startRun({
      id: runId,
      dataset,
      spec,
      transport: "local",
      ...(spec.name !== undefined && { name: spec.name }),
    });
    log(
      `${created ? "Run" : "Resuming run"} ${runId} (${describeStore(storeTarget(flags.db))}); resume with --run-id ${runId}`,
    );
    const view = createProgressView({ quiet: flags.quiet === true });
    // Ctrl-C / SIGTERM: stop reading, finish what is in flight, store it, say how to resume.
    const shutdown = shutdownSignal(() => log("Stopping: storing what is scored..."));
    const outcome = await runLocal({
      store,
      registry,
      dataset,
      spec,
      runId,
      concurrency: flags.concurrency,
      maxLineBytes: flags.maxLineBytes,
      newRun: created,
      onProgress: (progress) => view.update(progress),
      signal: shutdown.signal,
    }).finally(() => {
      view.stop();
      shutdown.dispose();
    });
    if (outcome.interrupted) {
      log(
        `Interrupted: ${outcome.summary.results} results are stored. Resume with --run-id ${runId}.`,
      );
    }

    if (outcome.produced.skipped > 0) {
      log(`Skipped ${outcome.produced.skipped} results already stored by an earlier attempt.`);
    }
    printSummary(outcome.summary, outcome.selection, flags.json === true);
    return outcome.produced.inputErrors > 0 ? ExitCode.inputErrors : ExitCode.ok;
  } finally {
    await store.close();
  }
}

async function refuseInvalidDataset(
  dataset: string,
  flags: RunFlags,
  registry: ScorerRegistry,
  spec: Awaited<ReturnType<typeof specFor>>,
): Promise<void> {
  const check = await checkDataset(dataset, spec, registry, { maxLineBytes: flags.maxLineBytes });
  if (check.errorCount === 0) return;
  const lines = check.errors.map((error) => `  ${describeInputError(error)}`);
  const more = check.errorCount - check.errors.length;
  if (more > 0) lines.push(`  ... and ${more} more`);
  throw new CliExit(
    ExitCode.refused,
    `--strict: refused ${dataset}: ${check.errorCount} invalid lines, nothing was scored\n${lines.join("\n")}`,
  );
}
