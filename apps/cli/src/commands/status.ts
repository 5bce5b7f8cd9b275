import type { Command } from "commander";
import {
  addDistributedOptions,
  type DistributedFlags,
} from "../distributed/distributed-options.js";
import { parseRunId } from "../run-id.js";

export interface StatusFlags extends DistributedFlags {
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
    const { statusAction } = await import("../actions/status.js");
    await statusAction(runId, flags);
  });
}
