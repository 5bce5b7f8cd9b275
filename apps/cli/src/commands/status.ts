import type { CommandUnknownOpts } from "@commander-js/extra-typings";
import type { StatusFlags } from "../actions/status.js";
import { declaredFlags } from "../declared-flags.js";
import { addDistributedOptions } from "../distributed/distributed-options.js";
import { parseRunId } from "../run-id.js";

export function registerStatus(program: CommandUnknownOpts): void {
  const command = program
    .command("status")
    .description(
      "show a distributed run's progress: planned, done, unscored, queues, throughput, ETA",
    )
    .argument("<run-id>", "the run to look at", parseRunId)
    .option("--json", "print JSON instead of text");
  addDistributedOptions(command).action(async (runId, flags, parsed) => {
    const { statusAction } = await import("../actions/status.js");
    // Without --queue-prefix, the run's own prefix is used (see withRunQueuePrefix).
    const prefixGiven = parsed.getOptionValueSource("queuePrefix") !== "default";
    await statusAction(runId, declaredFlags<StatusFlags>()(flags), { prefixGiven });
  });
}
