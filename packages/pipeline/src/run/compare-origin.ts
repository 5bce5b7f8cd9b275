import type { RunRecord } from "@assay/store";
import { hashFilePrefix } from "../ingest/dataset-hash.js";
import type { OpenDataset } from "../ingest/open-dataset.js";
import { changedSpecFields, specSha256 } from "../spec/spec-hash.js";

/** How a dataset and spec differ from what a run was made from. */
export interface OriginChanges {
  /** What changed about the dataset, one phrase each; empty when nothing did. */
  dataset: string[];
  /** What changed about the spec; empty when nothing did. */
  spec: string[];
  /**
   * Set when the dataset only grew: the bytes the run read before are unchanged, so the
   * lines it stored keep their meaning and the new lines join the run. The earlier size.
   */
  grewFrom?: number;
}

/**
 * Compares a run's recorded origin with the dataset and spec it is being resumed with.
 * The dataset's bytes that the run read before are hashed again (through the open
 * handle): a same-size file with one answer changed is caught, and a file that was only
 * appended to (a copy that completed) is not a change.
 */
export async function compareOrigin(
  run: RunRecord,
  dataset: OpenDataset,
  spec: unknown,
): Promise<OriginChanges> {
  const changes: OriginChanges = { dataset: [], spec: [] };
  if (run.datasetPath !== null && run.datasetPath !== dataset.resolvedPath) {
    changes.dataset.push(`path was ${run.datasetPath}, now ${dataset.resolvedPath}`);
  }
  const recorded = run.datasetBytes ?? 0;
  const hashed = run.datasetHashedBytes ?? 0;
  if (dataset.bytes < recorded) {
    changes.dataset.push(`size was ${recorded} bytes, now ${dataset.bytes}`);
  } else {
    const now = await hashFilePrefix(dataset.handle, hashed);
    if (now !== run.datasetSha256) {
      changes.dataset.push(
        `content changed: sha256 of its first ${hashed} bytes was ${short(run.datasetSha256)}, now ${short(now)}`,
      );
    } else if (dataset.bytes > recorded) {
      changes.grewFrom = recorded;
    }
  }
  if (run.specSha256 !== specSha256(spec)) {
    const fields = changedSpecFields(run.spec, spec);
    changes.spec.push(fields.length > 0 ? `fields ${fields.join(", ")}` : "its content");
  }
  return changes;
}

function short(hash: string | null | undefined): string {
  return hash == null ? "(none)" : hash.slice(0, 12);
}
