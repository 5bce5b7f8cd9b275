import { readFile } from "node:fs/promises";
import { type PriceTable, parsePriceTable } from "@assay/core";
import { selectionAblation } from "@assay/pipeline";
import {
  renderReportHtml,
  renderReportJson,
  renderReportTable,
  renderSummaryTable,
} from "@assay/report";
import { DEFAULT_FALL_STEPS, DEFAULT_MIN_FALL, reportBundle, runnerOf } from "@assay/store/reports";
import { type Command, Option } from "commander";
import { CliExit, ExitCode } from "../exit-codes.js";
import { checkOutPath, writeOutFile } from "../out-file.js";
import { writeOut } from "../output.js";
import { BY_OPTION, comparisonOptions, RESAMPLES_OPTION, SEED_OPTION } from "../report-options.js";
import { requireRun } from "../require-run.js";
import { parseRunId } from "../run-id.js";
import { DB_OPTION_HELP, openStoreFor } from "../store-option.js";

type Format = "table" | "json" | "html";

interface ReportFlags {
  json?: boolean;
  format?: Format;
  compare?: string;
  out?: string;
  prices?: string;
  trend: string;
  series?: string;
  fallSteps: string;
  minFall: string;
  by?: string;
  resamples: string;
  seed: string;
  db?: string;
}

export function registerReport(program: Command): void {
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
    .option("--trend <n>", "runs in the trend", "10")
    .option("--series <name>", "trend over runs with this name (default: the run's name)")
    .option(
      "--fall-steps <m>",
      "list trajectories whose verifier value fell this many steps in a row (early-stop candidates)",
      String(DEFAULT_FALL_STEPS),
    )
    .option(
      "--min-fall <d>",
      "smallest drop of the verifier value (0–1) that counts as a fall",
      String(DEFAULT_MIN_FALL),
    )
    .option(...BY_OPTION)
    .option(...RESAMPLES_OPTION)
    .option(...SEED_OPTION)
    .option("--db <target>", DB_OPTION_HELP)
    .action(async (runId: string, flags: ReportFlags) => {
      const format: Format = flags.json === true ? "json" : (flags.format ?? "table");
      const prices = flags.prices === undefined ? undefined : await loadPrices(flags.prices);
      if (flags.out !== undefined) await checkOutPath(flags.out);
      const store = await openStoreFor(flags.db, { create: false });
      try {
        await requireRun(store, runId);
        if (flags.compare !== undefined) await requireRun(store, flags.compare);
        const summary = await store.runSummary(runId);
        const stored = await reportBundle(runnerOf(store.driver), runId, {
          ...(prices !== undefined && { prices }),
          ...(flags.compare !== undefined && { compareRunId: flags.compare }),
          ...(flags.series !== undefined && { series: flags.series }),
          trendRuns: wholeNumber("--trend", flags.trend),
          fallSteps: wholeNumber("--fall-steps", flags.fallSteps),
          minFall: nonNegative("--min-fall", flags.minFall),
          ...comparisonOptions(flags),
        });
        // Re-selection from stored per-criterion, per-variant values (no model runs).
        const ablation = await selectionAblation(store, runId);
        const bundle = ablation === undefined ? stored : { ...stored, ablation };
        const text =
          format === "json"
            ? renderReportJson(summary, bundle)
            : format === "html"
              ? renderReportHtml(bundle)
              : `${renderSummaryTable(summary)}\n\n${renderReportTable(bundle)}`;
        if (flags.out === undefined) writeOut(`${text}\n`);
        else await writeOutFile(flags.out, text);
      } finally {
        await store.close();
      }
    });
}

async function loadPrices(file: string): Promise<PriceTable> {
  const text = await readFile(file, "utf8").catch(() => {
    throw new CliExit(
      ExitCode.refused,
      `Cannot read the price table ${file}: check the path given to --prices.`,
    );
  });
  return parsePriceTable(text, file);
}

function wholeNumber(flag: string, value: string): number {
  const n = Number(value);
  if (Number.isInteger(n) && n >= 1) return n;
  throw new CliExit(
    ExitCode.refused,
    `Expected \`${flag}\` to be a whole number from 1 and up, got \`${value}\``,
  );
}

function nonNegative(flag: string, value: string): number {
  const n = Number(value);
  if (value.trim() !== "" && Number.isFinite(n) && n >= 0) return n;
  throw new CliExit(
    ExitCode.refused,
    `Expected \`${flag}\` to be a number from 0 and up, got \`${value}\``,
  );
}
