import { DEFAULT_RUN_CONCURRENCY } from "@assay/core/run-defaults";
import type { CommandUnknownOpts } from "@commander-js/extra-typings";
import type { RunFlags } from "../actions/run.js";
import { addAnswersOptions } from "../answers-options.js";
import { DB_OPTION_HELP, DB_SCHEMA_OPTION } from "../db-option.js";
import { declaredFlags } from "../declared-flags.js";
import { ALLOW_INPUT_ERRORS_OPTION, maxInputErrorsOption } from "../input-errors-exit.js";
import { deviceName, FORMAT_OPTION, MAX_LINE_BYTES_OPTION, positiveInt } from "../options.js";
import { parseRunId } from "../run-id.js";
import {
  addVerifierFlags,
  type ParsedVerifierFlags,
  verifierFlagsGiven,
} from "../verifier-flags.js";

export function registerRun(program: CommandUnknownOpts): void {
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
    .option(
      "--concurrency <n>",
      "jobs in flight at once",
      positiveInt("--concurrency"),
      DEFAULT_RUN_CONCURRENCY,
    )
    .option(
      "--job-timeout <seconds>",
      "a job's time limit: past it the job fails with the reason and is retried, and its last try stores the result unscored (timeout); the spec's job_timeout_s wins",
      positiveInt("--job-timeout"),
      600,
    )
    .option("--strict", "refuse the whole dataset if any line is invalid, before scoring")
    .option(...ALLOW_INPUT_ERRORS_OPTION)
    .option(...maxInputErrorsOption(positiveInt("--max-input-errors")))
    .option("--json", "print the summary as JSON on stdout")
    .option("--db <target>", DB_OPTION_HELP)
    .option(...DB_SCHEMA_OPTION)
    .option(...MAX_LINE_BYTES_OPTION)
    .option("--device <device>", "where verifier models run: cpu or cuda:<id>", deviceName, "cpu")
    .option("--threads <n>", "onnxruntime threads for verifier models", positiveInt("--threads"))
    .option(
      "--allow-changed-dataset",
      "resume a run even though its dataset changed (another path, size or content)",
    )
    .option("--allow-changed-spec", "resume a run even though its spec changed")
    .option("-q, --quiet", "no progress output");
  addVerifierFlags(addAnswersOptions(command)).action(async (dataset, flags, self) => {
    const { runAction } = await import("../actions/run.js");
    process.exitCode = await runAction(dataset, {
      ...declaredFlags<Omit<RunFlags, "verifier"> & ParsedVerifierFlags>()(flags),
      verifier: verifierFlagsGiven(self),
    });
  });
}
