import { FieldsSpecSchema, type SampleView } from "@assay/core";
import type { Store } from "@assay/store";
import { CliExit, ExitCode } from "../exit-codes.js";
import { requireRun } from "../require-run.js";
import { type ReadBackOptions, readBack } from "./read-back.js";

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
  // Rows are read back as the run read them: through the spec's `fields`, and as reference
  // rows (no answer) when its answers were joined from batch outputs.
  const fields = FieldsSpecSchema.safeParse((run.spec as { fields?: unknown } | null)?.fields);
  const answersJoined = (await store.answerJoinCounts(runId)) !== undefined;
  const joined = answersJoined
    ? await store.joinedAnswer(runId, sample.taskId, sample.candidateIndex)
    : undefined;
  const options: ReadBackOptions = {
    answersJoined,
    ...(joined !== undefined && { joinedAnswer: joined }),
    ...(fields.success && fields.data !== undefined && { fields: fields.data }),
  };
  const path = dataset ?? run.dataset ?? null;
  return { sample, dataset: await readBack(path, sample, started, options) };
}
