import { readDataset } from "@assay/pipeline";

/**
 * Throws the dataset's InputError when nothing in it could be scored (missing, a folder,
 * empty), before a run is registered: a refused dataset must leave no empty run behind.
 * Reads only up to the first line that is not blank.
 */
export async function assertUsableDataset(file: string, maxLineBytes: number): Promise<void> {
  const events = readDataset(file, { maxLineBytes, checkDuplicateIds: false, parseThreads: 0 });
  try {
    await events.next();
  } finally {
    await events.return(undefined);
  }
}
