import type { SampleView } from "@assay/core";
import type { Store } from "@assay/store";
import { CliExit, ExitCode } from "../exit-codes.js";
import { requireRun } from "../require-run.js";
import { readBack } from "./read-back.js";

/**
 * One sample of a run as stored, with its text read back from the dataset (`dataset`
 * overrides the path the run recorded). Refuses an unknown run or sample.
 */
export async function sampleView(
  store: Store,
  runId: string,
  sampleId: string,
  dataset?: string,
): Promise<SampleView> {
  await requireRun(store, runId);
  const run = await store.getRun(runId);
  const sample = await store.sampleRecord(runId, sampleId);
  if (run === undefined || sample === undefined) {
    throw new CliExit(
      ExitCode.refused,
      `No sample "${sampleId}" in run "${runId}". A candidate's id is "<line id>#<index>"; ` +
        `\`assay export ${runId}\` lists every scored sample.`,
    );
  }
  const started = new Date(run.createdAt).toISOString();
  return { sample, dataset: await readBack(dataset ?? run.dataset ?? null, sample, started) };
}
