import { renderSampleView } from "@assay/report";
import { writeOut } from "../output.js";
import { sampleView } from "../show/sample-view.js";
import { openStoreFor } from "../store-option.js";

export interface ShowFlags {
  format: "table" | "json";
  json?: boolean;
  dataset?: string;
  db?: string;
  dbSchema?: string;
}

export async function showAction(runId: string, sampleId: string, flags: ShowFlags): Promise<void> {
  const store = await openStoreFor(flags.db, "assay show", {
    create: false,
    schema: flags.dbSchema,
  });
  try {
    const view = await sampleView(store, runId, sampleId, flags.dataset);
    const json = flags.json === true || flags.format === "json";
    writeOut(`${json ? JSON.stringify(view, null, 2) : renderSampleView(view)}\n`);
  } finally {
    await store.close();
  }
}
