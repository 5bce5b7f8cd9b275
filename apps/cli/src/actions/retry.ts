import { completeRun } from "@assay/pipeline";
import type { RetryFlags } from "../commands/retry.js";
import { openQueues, openSharedStore } from "../distributed/open-services.js";
import { jobsGone } from "../distributed/produce-failure.js";
import { renderRetryOutcome, retryRun, storedSpec } from "../distributed/retry-run.js";
import { JobsGoneError, unfinishedJobs, waitForRun } from "../distributed/wait-for-run.js";
import { CliExit, ExitCode } from "../exit-codes.js";
import { writeErr, writeOut } from "../output.js";
import { printSummary } from "../print-summary.js";
import { createProgressView } from "../progress.js";
import { requireRun } from "../require-run.js";
import { scorerRegistry } from "../scorer-registry.js";

export async function retryAction(runId: string, flags: RetryFlags): Promise<void> {
  const registry = await scorerRegistry({});
  const store = await openSharedStore(flags, { create: false });
  try {
    await requireRun(store, runId);
    const run = await store.getRun(runId);
    if (run === undefined) return;
    if (run.transport !== "bullmq") {
      throw new CliExit(
        ExitCode.refused,
        `Run "${runId}" was scored by \`assay run\`, not by workers: rerun \`assay run <dataset> --run-id ${runId}\` ` +
          "to score what is missing.",
      );
    }
    const transport = await openQueues(flags);
    try {
      const outcome = await retryRun({
        store,
        transport,
        registry,
        run,
        ...(flags.dataset !== undefined && { dataset: flags.dataset }),
      });
      if (flags.json === true && flags.wait !== true) {
        writeOut(`${JSON.stringify(outcome, null, 2)}\n`);
      } else {
        writeErr(`${renderRetryOutcome(outcome)}\n`);
      }
      if (flags.wait !== true) return;
      const planned = outcome.planned ?? run.plannedResults;
      if (planned === null) {
        throw new CliExit(ExitCode.refused, `Run "${runId}" has no planned count to wait for.`);
      }
      const view = createProgressView({ quiet: flags.quiet === true || flags.json === true });
      await waitForRun(store, runId, planned, {
        onTick: (done) =>
          view.update({
            lines: 0,
            samples: 0,
            planned,
            enqueued: planned,
            skipped: 0,
            inputErrors: 0,
            stored: done,
          }),
        unfinishedJobs: () => unfinishedJobs(transport),
      })
        .catch((error: unknown) => {
          throw error instanceof JobsGoneError ? jobsGone(error, runId, flags) : error;
        })
        .finally(() => view.stop());
      const selection = await completeRun(store, runId, storedSpec(run, registry));
      printSummary(await store.runSummary(runId), selection, flags.json === true);
    } finally {
      await transport.close();
    }
  } finally {
    await Promise.all([store.close(), registry.close()]);
  }
}
