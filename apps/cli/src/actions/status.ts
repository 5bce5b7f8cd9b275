import { completeRun } from "@assay/pipeline";
import type { DistributedFlags } from "../distributed/distributed-options.js";
import { readFailedJobsStatus, renderFailedJobs } from "../distributed/failed-jobs-status.js";
import { openQueues, openSharedStore, sharedStoreUrl } from "../distributed/open-services.js";
import { withRunQueuePrefix } from "../distributed/run-queue-prefix.js";
import { readRunStatus, renderRunStatus } from "../distributed/run-status.js";
import { writeOut } from "../output.js";
import { requireRun } from "../require-run.js";
import { openStoreHoldingRun } from "../run-schema.js";

export interface StatusFlags extends DistributedFlags {
  json?: boolean;
}

export async function statusAction(
  runId: string,
  given: StatusFlags,
  options: { prefixGiven: boolean } = { prefixGiven: true },
): Promise<void> {
  const store = await openStoreHoldingRun(runId, sharedStoreUrl(given), given.dbSchema, () =>
    openSharedStore(given, { create: false }),
  );
  try {
    await requireRun(store, runId);
    const flags = await withRunQueuePrefix(store, runId, given, options.prefixGiven);
    // Status only reads; it must not refuse to look at a misconfigured Redis, and says
    // what is wrong with it instead.
    const transport = await openQueues(flags, {}, true);
    try {
      // A run whose last result no one completed (its workers stopped first, an older
      // worker) is completed by the first look that finds it complete, as any path does.
      await completeRun(store, runId);
      const status = await readRunStatus(store, transport, runId);
      const failedJobs = await readFailedJobsStatus(transport, runId);
      writeOut(
        `${flags.json === true ? JSON.stringify({ ...status, failedJobs }, null, 2) : `${renderRunStatus(status, flags)}\n${renderFailedJobs(runId, failedJobs, flags)}`}\n`,
      );
    } finally {
      await transport.close();
    }
  } finally {
    await store.close();
  }
}
