import type { DatasetFormat } from "@assay/pipeline";
import type { Command } from "commander";
import { type AnswersFlags, addAnswersOptions } from "../answers-options.js";
import {
  addDistributedOptions,
  type DistributedFlags,
} from "../distributed/distributed-options.js";
import { FORMAT_OPTION, positiveInt } from "../options.js";
import { parseRunId } from "../run-id.js";

export interface ProduceFlags extends DistributedFlags, AnswersFlags {
  spec?: string;
  runId?: string;
  wait?: boolean;
  json?: boolean;
  maxLineBytes: number;
  format?: DatasetFormat;
  quiet?: boolean;
  allowChangedDataset?: boolean;
  allowChangedSpec?: boolean;
}

export function registerProduce(program: Command): void {
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
    .option(
      "--max-line-bytes <n>",
      "longest accepted line",
      positiveInt("--max-line-bytes"),
      1 << 20,
    )
    .option(
      "--allow-changed-dataset",
      "resume a run even though its dataset changed (another path, size or content)",
    )
    .option("--allow-changed-spec", "resume a run even though its spec changed")
    .option("-q, --quiet", "no progress output");
  addAnswersOptions(command);
  addDistributedOptions(command).action(async (dataset: string, flags: ProduceFlags) => {
    const { produceAction } = await import("../actions/produce.js");
    process.exitCode = await produceAction(dataset, flags);
  });
}
