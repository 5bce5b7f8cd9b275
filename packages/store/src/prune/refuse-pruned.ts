import { PrunedRunError } from "@assay/core/errors";
import type { SqlRunner } from "../sql-runner.js";

/**
 * Throws a PrunedRunError when `assay prune` dropped the run's raw rows: `what` says what
 * was asked of them ("exported", "resumed"). Its tables would answer with no rows, which
 * would read as a run with nothing in it, or rewrite its rollups from nothing.
 */
export async function refusePrunedRun(
  runner: SqlRunner,
  runId: string,
  what: string,
): Promise<void> {
  const { rows } = await runner.query<{ pruned_at: Date | string | null }>(
    "SELECT pruned_at FROM runs WHERE id = $1",
    [runId],
  );
  const prunedAt = rows[0]?.pruned_at;
  if (prunedAt != null) throw new PrunedRunError(runId, new Date(prunedAt), what);
}
