import { renderSampleView } from "@assay/report";
import { writeOut } from "../output.js";
import { openStoreHoldingRun } from "../run-schema.js";
import { sampleView } from "../show/sample-view.js";
import { openStoreFor, storeTarget } from "../store-option.js";

export interface ShowFlags {
  format: "table" | "json";
  json?: boolean;
  dataset?: string;
  db?: string;
  dbSchema?: string;
}

export async function showAction(runId: string, sampleId: string, flags: ShowFlags): Promise<void> {
  const store = await openStoreHoldingRun(
    runId,
    storeTarget(flags.db).databaseUrl,
    flags.dbSchema,
    () => openStoreFor(flags.db, "assay show", { create: false, schema: flags.dbSchema }),
  );
  try {
    const view = await sampleView(store, runId, sampleId, flags.dataset);
    const json = flags.json === true || flags.format === "json";
    writeOut(`${json ? JSON.stringify(view, null, 2) : renderSampleView(view)}\n`);
  } finally {
    await store.close();
  }
}
