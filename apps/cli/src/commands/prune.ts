import type { CommandUnknownOpts } from "@commander-js/extra-typings";
import type { PruneFlags } from "../actions/prune.js";
import { DB_OPTION_HELP, DB_SCHEMA_OPTION } from "../db-option.js";
import { declaredFlags } from "../declared-flags.js";
import { duration } from "../duration.js";
import { wholeNumber } from "../options.js";

const EXAMPLES = `
Examples:
  assay prune --older-than 90d --dry-run   list the runs started over 90 days ago it would prune
  assay prune --older-than 90d             prune them
  assay prune --keep-last 30               prune all but the 30 newest runs
  assay prune --older-than 8w --keep-last 10 --db postgres://localhost/assay
                                           runs over 8 weeks old, never one of the 10 newest
  assay prune --abandoned                  every run given up with \`assay abandon\`
  assay prune --run night-0412 --dry-run   one run by id (repeat --run for more)

A pruned run keeps its runs row and its rollups: \`assay report <run>\` with default
settings and every trend still show its figures. Its raw rows (samples, scores,
truncations, usage, selections) are dropped, so export, show, resume, retry, selection
reruns, --by, --compare and other early-stop settings refuse it. Runs without rollups
(unfinished, or rolled-up figures cleared) are never pruned; the command lists them. An
abandoned run (\`assay abandon\`) has no rollups: it is pruned all the same, and reports
and trends show it as abandoned.`;

export function registerPrune(program: CommandUnknownOpts): void {
  program
    .command("prune")
    .description("drop the raw rows of old finished runs, keeping their rollups for reports")
    .option(
      "--older-than <duration>",
      "prune runs started longer ago than this: a whole number and h, d or w (90d, 12h, 8w)",
      duration("--older-than"),
    )
    .option(
      "--keep-last <n>",
      "never prune the n newest runs (by start time); alone: prune all others",
      wholeNumber("--keep-last", { min: 0 }),
    )
    .option("--abandoned", "prune every abandoned run (see `assay abandon`)")
    .option(
      "--run <run-id>",
      "prune this run (repeatable): completed or abandoned",
      (value: string, previous: string[] = []) => [...previous, value],
    )
    .option("--dry-run", "only list what would be pruned")
    .option("--json", "print the outcome as JSON")
    .option("--db <target>", DB_OPTION_HELP)
    .option(...DB_SCHEMA_OPTION)
    .addHelpText("after", EXAMPLES)
    .action(async (flags) => {
      const { pruneAction } = await import("../actions/prune.js");
      await pruneAction(declaredFlags<PruneFlags>()(flags));
    });
}
