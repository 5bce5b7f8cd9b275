import { AbandonedRunError } from "@assay/core/errors";
import { completeRun } from "@assay/pipeline";
import type { DistributedFlags } from "../distributed/distributed-options.js";
import { openQueues, openSharedStore, sharedStoreUrl } from "../distributed/open-services.js";
import { renderRetryOutcome, retryRun } from "../distributed/retry-run.js";
import { withRunQueuePrefix } from "../distributed/run-queue-prefix.js";
import { retryFailure } from "../distributed/service-failure.js";
import { unfinishedJobs, waitForRun } from "../distributed/wait-for-run.js";
import { watchForWorkers } from "../distributed/worker-watch.js";
import { CliExit, ExitCode } from "../exit-codes.js";
import { writeErr, writeOut } from "../output.js";
import { printSummary } from "../print-summary.js";
import { createProgressView } from "../progress/progress-view.js";
import { requireRun } from "../require-run.js";
import { openStoreHoldingRun } from "../run-schema.js";
import { scorerRegistry } from "../scorer-registry.js";
import { selectionOf } from "../selection-of.js";

export interface RetryFlags extends DistributedFlags {
  dataset?: string;
  wait?: boolean;
  json?: boolean;
  quiet?: boolean;
}

export async function retryAction(
  runId: string,
  given: RetryFlags,
  options: { prefixGiven: boolean } = { prefixGiven: true },
): Promise<void> {
  const registry = await scorerRegistry({});
  const store = await openStoreHoldingRun(runId, sharedStoreUrl(given), given.dbSchema, () =>
    openSharedStore(given, { create: false }),
  );
  try {
    await requireRun(store, runId);
    const flags = await withRunQueuePrefix(store, runId, given, options.prefixGiven);
    const run = await store.getRun(runId);
    if (run === undefined) return;
    await store.refusePrunedRun(runId, "retried");
    if (run.abandonedAt != null) throw new AbandonedRunError(runId, run.abandonedAt, "retried");
    if (run.transport !== "bullmq") {
      throw new CliExit(
        ExitCode.refused,
        `Run "${runId}" was scored by \`assay run\`, not by workers: rerun \`assay run <dataset> --run-id ${runId}\` ` +
          "to score what is missing.",
      );
    }
    // Like a producer, retry stops on a Redis outage, saying how to go on, not waits.
    const transport = await openQueues(flags, { failOnOutage: true });
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
      const view = createProgressView({
        quiet: flags.quiet === true || flags.json === true,
        initial: {},
      });
      const watch = watchForWorkers(
        () => transport.prefixQueues(),
        flags,
        (line) => view.note(line),
      );
      await waitForRun(store, runId, planned, {
        onTick: (done) => view.update({ done, planned }),
        unfinishedJobs: () => unfinishedJobs(transport),
      }).finally(() => {
        watch.stop();
        view.stop();
      });
      const completion = await completeRun(store, runId, { wait: true });
      const summary = await store.runSummary(runId);
      view.finish(summary);
      printSummary(summary, selectionOf(completion), flags.json === true);
    } catch (error) {
      throw retryFailure(error, runId, flags);
    } finally {
      // Closing may fail on the same outage; the error above is the one to report.
      await transport.close().catch(() => {});
    }
  } finally {
    await Promise.all([store.close(), registry.close()]);
  }
}
