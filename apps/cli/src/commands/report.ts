import { renderSummaryJson, renderSummaryTable } from "@assay/report";
import type { Command } from "commander";
import { requireRun } from "../require-run.js";
import { DB_OPTION_HELP, openStoreFor } from "../store-option.js";

export function registerReport(program: Command): void {
  program
    .command("report")
    .description("print a run's summary from the store")
    .argument("<run-id>", "the run to report on")
    .option("--json", "print JSON instead of tables")
    .option("--db <target>", DB_OPTION_HELP)
    .action(async (runId: string, flags: { json?: boolean; db?: string }) => {
      const store = await openStoreFor(flags.db);
      try {
        await requireRun(store, runId);
        const summary = await store.runSummary(runId);
        const text = flags.json === true ? renderSummaryJson(summary) : renderSummaryTable(summary);
        process.stdout.write(`${text}\n`);
      } finally {
        await store.close();
      }
    });
}
