import type { CommandUnknownOpts } from "@commander-js/extra-typings";
import type { BaselineFlags } from "../actions/baseline.js";
import { DB_OPTION_HELP, DB_SCHEMA_OPTION } from "../db-option.js";
import { declaredFlags } from "../declared-flags.js";
import { parseRunId } from "../run-id.js";

const EXAMPLES = `
Examples:
  assay baseline release-0301               compare every later run of its name with it
  assay report night-0412 --compare release-0301
  assay baseline release-0301 --unpin       compare later runs with the run before them only
  assay baseline                            list each name's pinned run

Each run completes with its comparison with the run of its name before it counted, and with
the pinned baseline's too, so a report of either pair reads a few counted rows. A name has one
baseline: pinning another replaces it. Runs completed before the pin are compared live.`;

export function registerBaseline(program: CommandUnknownOpts): void {
  program
    .command("baseline")
    .description("pin a completed run that later runs of its name are compared with at completion")
    .argument(
      "[run-id]",
      "the run to pin (or unpin); without one, list the pinned runs",
      parseRunId,
    )
    .option("--unpin", "unpin the run instead")
    .option("--db <target>", DB_OPTION_HELP)
    .option(...DB_SCHEMA_OPTION)
    .addHelpText("after", EXAMPLES)
    .action(async (runId, flags) => {
      const { baselineAction } = await import("../actions/baseline.js");
      await baselineAction(runId, declaredFlags<BaselineFlags>()(flags));
    });
}
