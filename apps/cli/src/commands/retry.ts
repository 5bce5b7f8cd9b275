import type { CommandUnknownOpts } from "@commander-js/extra-typings";
import type { RetryFlags } from "../actions/retry.js";
import { declaredFlags } from "../declared-flags.js";
import { addDistributedOptions } from "../distributed/distributed-options.js";
import { parseRunId } from "../run-id.js";

export function registerRetry(program: CommandUnknownOpts): void {
  const command = program
    .command("retry")
    .description(
      "re-enqueue a distributed run's failed jobs and every planned result missing from the store",
    )
    .argument("<run-id>", "the run to finish", parseRunId)
    .option(
      "--dataset <file>",
      "plan missing results from this copy of the dataset (default: the path the run recorded)",
    )
    .option("--wait", "show progress until every result is stored, then print the summary")
    .option("--json", "print the outcome (and with --wait the summary) as JSON on stdout")
    .option("-q, --quiet", "no progress output");
  addDistributedOptions(command).action(async (runId, flags, parsed) => {
    const { retryAction } = await import("../actions/retry.js");
    // Without --queue-prefix, the run's own prefix is used (see withRunQueuePrefix).
    const prefixGiven = parsed.getOptionValueSource("queuePrefix") !== "default";
    await retryAction(runId, declaredFlags<RetryFlags>()(flags), { prefixGiven });
  });
}
