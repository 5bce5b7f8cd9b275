import type { Command } from "commander";
import {
  addDistributedOptions,
  type DistributedFlags,
} from "../distributed/distributed-options.js";
import { readFailedJobs, renderFailedJobs } from "../distributed/failed-jobs-status.js";
import { openQueues, openSharedStore } from "../distributed/open-services.js";
import { readRunStatus, renderRunStatus } from "../distributed/run-status.js";
import { writeOut } from "../output.js";
import { requireRun } from "../require-run.js";
import { parseRunId } from "../run-id.js";

interface StatusFlags extends DistributedFlags {
  json?: boolean;
}

export function registerStatus(program: Command): void {
  const command = program
    .command("status")
    .description(
      "show a distributed run's progress: planned, done, unscored, queues, throughput, ETA",
    )
    .argument("<run-id>", "the run to look at", parseRunId)
    .option("--json", "print JSON instead of text");
  addDistributedOptions(command).action(async (runId: string, flags: StatusFlags) => {
    const store = await openSharedStore(flags, { create: false });
    try {
      await requireRun(store, runId);
      // Status only reads; it must not refuse to look at a misconfigured Redis.
      const transport = await openQueues({ ...flags, allowEviction: true });
      try {
        const status = await readRunStatus(store, transport, runId);
        const failedJobs = await readFailedJobs(transport, runId);
        writeOut(
          `${flags.json === true ? JSON.stringify({ ...status, failedJobs }, null, 2) : `${renderRunStatus(status)}\n${renderFailedJobs(runId, failedJobs)}`}\n`,
        );
      } finally {
        await transport.close();
      }
    } finally {
      await store.close();
    }
  });
}
