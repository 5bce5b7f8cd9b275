import { DEFAULT_FALL_STEPS, DEFAULT_MIN_FALL } from "@assay/store/report-options";
import { type CommandUnknownOpts, Option } from "@commander-js/extra-typings";
import type { ReportFlags } from "../actions/report.js";
import { DB_OPTION_HELP, DB_SCHEMA_OPTION } from "../db-option.js";
import { declaredFlags } from "../declared-flags.js";
import { decimalNumber, wholeNumber } from "../options.js";
import {
  BY_OPTION,
  RESAMPLES_OPTION,
  SEED_OPTION,
  STATEMENT_TIMEOUT_OPTION,
} from "../report-options.js";
import { parseRunId } from "../run-id.js";

export function registerReport(program: CommandUnknownOpts): void {
  program
    .command("report")
    .description(
      "report a run from the store: summary, selection accuracy, cost, truncation, trend",
    )
    .argument("<run-id>", "the run to report on", parseRunId)
    .option("--compare <run-id>", "show a second run side by side", parseRunId)
    .addOption(
      new Option("--format <format>", "output format")
        .choices(["table", "json", "html"])
        .default("table"),
    )
    .option("--json", "same as --format json")
    .option("--out <file>", "write the report to this file instead of stdout")
    .option("--prices <file>", "price table (YAML or JSON) to turn usage into cost")
    .option("--trend <n>", "runs in the trend", wholeNumber("--trend"), 10)
    .option("--series <name>", "trend over runs with this name (default: the run's name)")
    .option(
      "--fall-steps <m>",
      "list trajectories whose verifier value fell this many steps in a row (early-stop candidates)",
      wholeNumber("--fall-steps"),
      DEFAULT_FALL_STEPS,
    )
    .option(
      "--min-fall <d>",
      "smallest drop of the verifier value (0–1) that counts as a fall",
      decimalNumber("--min-fall"),
      DEFAULT_MIN_FALL,
    )
    .option(...BY_OPTION)
    .option(...RESAMPLES_OPTION)
    .option(...SEED_OPTION)
    .option(...STATEMENT_TIMEOUT_OPTION)
    .option("--db <target>", DB_OPTION_HELP)
    .option(...DB_SCHEMA_OPTION)
    .action(async (runId, flags) => {
      const { reportAction } = await import("../actions/report.js");
      await reportAction(runId, declaredFlags<ReportFlags>()(flags));
    });
}
