import type { ResultKey } from "@assay/core";

/** One string per result key, for Set lookups; NUL cannot occur in Postgres text. */
export function resultKeyString(key: Omit<ResultKey, "runId">): string {
  return `${key.sampleId}\u0000${key.scorer}\u0000${key.criterion}\u0000${key.repetition}`;
}
