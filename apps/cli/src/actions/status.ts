import { completeRun } from "@assay/pipeline";
import type { DistributedFlags } from "../distributed/distributed-options.js";
import { readFailedJobs, renderFailedJobs } from "../distributed/failed-jobs-status.js";
import { openQueues, openSharedStore } from "../distributed/open-services.js";
import { readRunStatus, renderRunStatus } from "../distributed/run-status.js";
import { writeOut } from "../output.js";
import { requireRun } from "../require-run.js";

export interface StatusFlags extends DistributedFlags {
  json?: boolean;
}

export async function statusAction(runId: string, flags: StatusFlags): Promise<void> {
  const store = await openSharedStore(flags, { create: false });
  try {
    await requireRun(store, runId);
    // Status only reads; it must not refuse to look at a misconfigured Redis, and says
    // what is wrong with it instead.
    const transport = await openQueues(flags, {}, true);
    try {
      // A run whose last result no one completed (its workers stopped first, an older
      // worker) is completed by the first look that finds it complete, as any path does.
      await completeRun(store, runId);
      const status = await readRunStatus(store, transport, runId);
      const failedJobs = await readFailedJobs(transport, runId);
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
