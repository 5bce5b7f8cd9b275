import type { CommandUnknownOpts } from "@commander-js/extra-typings";
import type { AbandonFlags } from "../actions/abandon.js";
import { DB_OPTION_HELP, DB_SCHEMA_OPTION } from "../db-option.js";
import { declaredFlags } from "../declared-flags.js";
import { parseRunId } from "../run-id.js";

const EXAMPLES = `
Examples:
  assay abandon night-0412                  give up a run that will never finish
  assay prune --run night-0412              then drop its raw rows

An abandoned run is never completed (a late result or \`assay status\` leaves it as it is);
reports and trends show it as abandoned, and \`assay prune --abandoned\` drops its raw rows.
A completed run cannot be abandoned: prune it instead.`;

export function registerAbandon(program: CommandUnknownOpts): void {
  program
    .command("abandon")
    .description("mark a run that will never finish as abandoned, so that prune can drop it")
    .argument("<run-id>", "the run to give up", parseRunId)
    .option("--db <target>", DB_OPTION_HELP)
    .option(...DB_SCHEMA_OPTION)
    .addHelpText("after", EXAMPLES)
    .action(async (runId, flags) => {
      const { abandonAction } = await import("../actions/abandon.js");
      await abandonAction(runId, declaredFlags<AbandonFlags>()(flags));
    });
}
