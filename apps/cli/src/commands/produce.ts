import type { CommandUnknownOpts } from "@commander-js/extra-typings";
import type { ProduceFlags } from "../actions/produce.js";
import { addAnswersOptions } from "../answers-options.js";
import { declaredFlags } from "../declared-flags.js";
import { addDistributedOptions } from "../distributed/distributed-options.js";
import { ALLOW_INPUT_ERRORS_OPTION, maxInputErrorsOption } from "../input-errors-exit.js";
import { FORMAT_OPTION, MAX_LINE_BYTES_OPTION, positiveInt } from "../options.js";
import { parseRunId } from "../run-id.js";

export function registerProduce(program: CommandUnknownOpts): void {
  const command = program
    .command("produce")
    .description(
      "register a run in Postgres and enqueue its score jobs in Redis for `assay worker`",
    )
    .argument(
      "<dataset>",
      "dataset file (JSONL, CSV, TSV or Parquet; JSONL/CSV/TSV may be gzip or zstd), or - for standard input",
    )
    .option(...FORMAT_OPTION)
    .option("--spec <file>", "run spec (JSON or YAML): routing rules and scorers")
    .option(
      "--run-id <id>",
      "run id; reuse one to resume: stored results are not enqueued again",
      parseRunId,
    )
    .option("--wait", "show progress until every result is stored, then print the summary")
    .option("--json", "with --wait: print the summary as JSON on stdout")
    .option(...MAX_LINE_BYTES_OPTION)
    .option(
      "--allow-changed-dataset",
      "resume a run even though its dataset changed (another path, size or content)",
    )
    .option("--allow-changed-spec", "resume a run even though its spec changed")
    .option(...ALLOW_INPUT_ERRORS_OPTION)
    .option(...maxInputErrorsOption(positiveInt("--max-input-errors")))
    .option("-q, --quiet", "no progress output");
  addDistributedOptions(addAnswersOptions(command)).action(async (dataset, flags) => {
    const { produceAction } = await import("../actions/produce.js");
    process.exitCode = await produceAction(dataset, declaredFlags<ProduceFlags>()(flags));
  });
}
