import type { DatasetFormat } from "@assay/pipeline";
import type { Command } from "commander";
import { type AnswersFlags, addAnswersOptions } from "../answers-options.js";
import { DB_OPTION_HELP, DB_SCHEMA_OPTION } from "../db-option.js";
import { type DeviceName, deviceName, FORMAT_OPTION, positiveInt } from "../options.js";
import { parseRunId } from "../run-id.js";
import { addVerifierFlags, type VerifierFlags, verifierFlagsGiven } from "../verifier-flags.js";

export interface RunFlags extends AnswersFlags {
  spec?: string;
  runId?: string;
  concurrency: number;
  strict?: boolean;
  json?: boolean;
  db?: string;
  dbSchema?: string;
  maxLineBytes: number;
  format?: DatasetFormat;
  quiet?: boolean;
  allowChangedDataset?: boolean;
  allowChangedSpec?: boolean;
  device?: DeviceName;
  threads?: number;
  /** The verifier flags typed on the command line (see `verifierFlagsGiven`). */
  verifier: VerifierFlags;
}

export function registerRun(program: Command): void {
  const command = program
    .command("run")
    .description("score a dataset in this process (embedded store unless --db/DATABASE_URL)")
    .argument(
      "<dataset>",
      "dataset file (JSONL, CSV, TSV or Parquet; JSONL/CSV/TSV may be gzip or zstd), or - for standard input",
    )
    .option(...FORMAT_OPTION)
    .option(
      "--spec <file>",
      "run spec (JSON or YAML): routing rules and scorers (a verifier's args.model: a folder or a Hugging Face id owner/name[@revision])",
    )
    .option(
      "--run-id <id>",
      "run id; reuse one to resume a run (default: <dataset>-<time>)",
      parseRunId,
    )
    .option("--concurrency <n>", "jobs in flight at once", positiveInt("--concurrency"), 4000)
    .option("--strict", "refuse the whole dataset if any line is invalid, before scoring")
    .option("--json", "print the summary as JSON on stdout")
    .option("--db <target>", DB_OPTION_HELP)
    .option(...DB_SCHEMA_OPTION)
    .option(
      "--max-line-bytes <n>",
      "longest accepted line",
      positiveInt("--max-line-bytes"),
      1 << 20,
    )
    .option("--device <device>", "where verifier models run: cpu or cuda:<id>", deviceName, "cpu")
    .option("--threads <n>", "onnxruntime threads for verifier models", positiveInt("--threads"))
    .option(
      "--allow-changed-dataset",
      "resume a run even though its dataset changed (another path, size or content)",
    )
    .option("--allow-changed-spec", "resume a run even though its spec changed")
    .option("-q, --quiet", "no progress output");
  addAnswersOptions(command);
  addVerifierFlags(command).action(
    async (dataset: string, flags: Omit<RunFlags, "verifier">, self: Command) => {
      const { runAction } = await import("../actions/run.js");
      process.exitCode = await runAction(dataset, { ...flags, verifier: verifierFlagsGiven(self) });
    },
  );
}
