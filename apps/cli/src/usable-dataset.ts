import type { RunSpec } from "@assay/core";
import { assertFieldsInFirstRecord, type OpenDataset, readDataset } from "@assay/pipeline";
import { writeErr } from "./output.js";

/**
 * Throws the dataset's InputError when nothing in it could be scored (empty, or only blank
 * lines), and the spec's SpecError when its `fields` name columns the first record lacks,
 * before a run is registered: a refused dataset must leave no empty run behind. Reads only
 * up to the first line that is not blank, through the handle the run reads. What the
 * mapping reads but likely did not mean (a chat turn by fixed position) is a warning.
 */
export async function assertUsableDataset(
  dataset: OpenDataset,
  maxLineBytes: number,
  spec: RunSpec,
  specFile: string,
  options: { answersJoined?: boolean } = {},
): Promise<void> {
  const events = readDataset(dataset, { maxLineBytes, checkDuplicateIds: false, parseThreads: 0 });
  try {
    await events.next();
  } finally {
    await events.return(undefined);
  }
  const warnings = await assertFieldsInFirstRecord(
    dataset,
    spec.fields,
    specFile,
    maxLineBytes,
    options,
  );
  for (const warning of warnings) writeErr(`Warning: ${warning}\n`);
}
