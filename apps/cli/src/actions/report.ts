import { readFile } from "node:fs/promises";
import { type PriceTable, parsePriceTable, priceTableWithIdentities } from "@assay/core";
import { runReportBundle } from "@assay/pipeline/report";
import {
  renderReportHtml,
  renderReportJson,
  renderReportTable,
  renderSummaryTable,
} from "@assay/report";
import type { Store } from "@assay/store";
import { DEFAULT_FALL_STEPS, DEFAULT_MIN_FALL } from "@assay/store/report-options";
import { cancelQueriesOnSignal } from "../cancel-on-signal.js";
import { CliExit, ExitCode } from "../exit-codes.js";
import { checkOutPath, writeOutFile } from "../out-file.js";
import { writeOut } from "../output.js";
import { comparisonOptions } from "../report-options.js";
import { requireRun } from "../require-run.js";
import { openStoreHoldingRun } from "../run-schema.js";
import { statementTimedOut } from "../statement-timeout.js";
import { openStoreFor, storeTarget } from "../store-option.js";

export type ReportFormat = "table" | "json" | "html";

export interface ReportFlags {
  json?: boolean;
  format?: ReportFormat;
  compare?: string;
  out?: string;
  prices?: string;
  trend: number;
  series?: string;
  fallSteps: number;
  minFall: number;
  by?: string;
  resamples: number;
  seed: number;
  db?: string;
  dbSchema?: string;
  statementTimeout: number;
}

export async function reportAction(runId: string, flags: ReportFlags): Promise<void> {
  const format: ReportFormat = flags.json === true ? "json" : (flags.format ?? "table");
  const prices = flags.prices === undefined ? undefined : await loadPrices(flags.prices);
  if (flags.out !== undefined) await checkOutPath(flags.out);
  const store = await openStoreHoldingRun(
    runId,
    storeTarget(flags.db).databaseUrl,
    flags.dbSchema,
    () =>
      openStoreFor(flags.db, "assay report", {
        create: false,
        schema: flags.dbSchema,
        statementTimeoutMs: Math.round(flags.statementTimeout * 1000),
      }),
  );
  try {
    const text = await cancelQueriesOnSignal(store, () =>
      reportText(store, runId, flags, format, prices),
    ).catch((error: unknown) => {
      throw statementTimedOut(error, flags.statementTimeout, storeTarget(flags.db).databaseUrl);
    });
    if (flags.out === undefined) writeOut(`${text}\n`);
    else await writeOutFile(flags.out, text);
  } finally {
    await store.close();
  }
}

async function reportText(
  store: Store,
  runId: string,
  flags: ReportFlags,
  format: ReportFormat,
  prices: PriceTable | undefined,
): Promise<string> {
  await requireRun(store, runId);
  if (flags.compare !== undefined) await requireRun(store, flags.compare);
  await refuseRawReportOfPruned(store, runId, flags);
  const { summary, bundle } = await runReportBundle(store, runId, {
    ...(prices !== undefined && { prices }),
    ...(flags.compare !== undefined && { compareRunId: flags.compare }),
    ...(flags.series !== undefined && { series: flags.series }),
    trendRuns: flags.trend,
    fallSteps: flags.fallSteps,
    minFall: flags.minFall,
    ...comparisonOptions(flags),
  });
  return format === "json"
    ? renderReportJson(summary, bundle)
    : format === "html"
      ? renderReportHtml(bundle)
      : // The report's join line has the cost of what was billed but not joined: it alone.
        `${renderSummaryTable(summary, { answers: bundle.answers === undefined })}\n\n${renderReportTable(bundle)}`;
}

/**
 * A pruned run is reported from its rollups, which hold the figures of the default
 * settings, the slices by the fields its spec declares and the comparisons counted when it
 * completed: another comparison, another slice
 * (--by) or another early-stop setting would read raw rows that are gone, and show a run
 * with nothing in it.
 */
async function refuseRawReportOfPruned(
  store: Store,
  runId: string,
  flags: ReportFlags,
): Promise<void> {
  const rawSlice = flags.by === undefined ? undefined : await store.rawSliceReason(runId, flags.by);
  const rawSettings = [
    rawSlice !== undefined && `--by ${flags.by} (${rawSlice})`,
    flags.fallSteps !== DEFAULT_FALL_STEPS && "--fall-steps",
    flags.minFall !== DEFAULT_MIN_FALL && "--min-fall",
  ].filter((flag): flag is string => flag !== false);
  if (rawSettings.length > 0) {
    await store.refusePrunedRun(runId, `reported with ${rawSettings.join(", ")}`);
  }
  // A comparison counted when the run completed (with the run before it or its pinned
  // baseline) is read from those counts, whether or not either run's raw rows remain.
  if (flags.compare !== undefined && !(await store.comparisonCounted(runId, flags.compare))) {
    await store.refusePrunedRun(runId, "compared");
    await store.refusePrunedRun(flags.compare, "compared");
  }
}

async function loadPrices(file: string): Promise<PriceTable> {
  const text = await readFile(file, "utf8").catch(() => {
    throw new CliExit(
      ExitCode.refused,
      `Cannot read the price table ${file}: check the path given to --prices.`,
    );
  });
  // A model folder is priced under its identity too: what usage rows name it by.
  return priceTableWithIdentities(parsePriceTable(text, file), file);
}
