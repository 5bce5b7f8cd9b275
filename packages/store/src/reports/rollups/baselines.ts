import type { SqlRunner } from "../../sql-runner.js";

/** What became of `assay baseline <run-id>`. */
export type BaselinePin =
  | { state: "pinned"; name: string; previous: string | null }
  /** The run has not completed with task rollups, which its comparisons are counted from. */
  | { state: "not rolled up" }
  /** Abandoned or pruned: later runs could not be compared with it. */
  | { state: "abandoned" | "pruned" }
  /** Its spec set no `name`: there are no runs of its name to compare with it. */
  | { state: "unnamed" };

/**
 * Pins the run as its name's baseline (inside the caller's transaction), replacing the one pinned before: each run of that name
 * that completes from now on is also compared with it (comparison-rollups.ts), so the
 * morning's report against it reads counted rows. The run must be usable as a baseline: completed
 * with task rollups, neither abandoned nor pruned.
 */
export async function pinBaseline(runner: SqlRunner, runId: string): Promise<BaselinePin> {
  const { rows } = await runner.query<{
    name: string | null;
    abandoned: boolean;
    pruned: boolean;
    rolled_up: boolean;
  }>(
    `SELECT r.name, r.abandoned_at IS NOT NULL AS abandoned, r.pruned_at IS NOT NULL AS pruned,
            coalesce(rr.tasks_rolled_up, false) AS rolled_up
     FROM runs r LEFT JOIN run_rollups rr ON rr.run_id = r.id
     WHERE r.id = $1`,
    [runId],
  );
  const run = rows[0];
  if (run === undefined) throw new Error(`pinBaseline: no run ${runId}`);
  if (run.pruned) return { state: "pruned" };
  if (run.abandoned) return { state: "abandoned" };
  if (run.name === null) return { state: "unnamed" };
  if (!run.rolled_up) return { state: "not rolled up" };
  // Two pins of one name at once take turns, so each says which run it replaced.
  await runner.query("SELECT pg_advisory_xact_lock(hashtext('assay.baseline'), hashtext($1))", [
    run.name,
  ]);
  const before = await runner.query<{ run_id: string }>(
    "SELECT run_id FROM run_baselines WHERE name = $1",
    [run.name],
  );
  await runner.query(
    `INSERT INTO run_baselines (name, run_id) VALUES ($1, $2)
     ON CONFLICT (name) DO UPDATE SET run_id = excluded.run_id, pinned_at = now()`,
    [run.name, runId],
  );
  return { state: "pinned", name: run.name, previous: before.rows[0]?.run_id ?? null };
}

/**
 * Unpins the run if it is its name's baseline; later runs are compared only with the run
 * before them again. Comparisons already counted with it stay. The name it was unpinned
 * from, or null when it was not pinned.
 */
export async function unpinBaseline(runner: SqlRunner, runId: string): Promise<string | null> {
  const { rows } = await runner.query<{ name: string }>(
    "DELETE FROM run_baselines WHERE run_id = $1 RETURNING name",
    [runId],
  );
  return rows[0]?.name ?? null;
}

/** A name's pinned baseline, as `assay baseline` lists it. */
export interface PinnedBaseline {
  name: string;
  runId: string;
  pinnedAt: Date;
}

/** Every name's pinned baseline, by name. */
export async function listBaselines(runner: SqlRunner): Promise<PinnedBaseline[]> {
  const { rows } = await runner.query<{ name: string; run_id: string; pinned_at: Date | string }>(
    "SELECT name, run_id, pinned_at FROM run_baselines ORDER BY name",
  );
  return rows.map((row) => ({
    name: row.name,
    runId: row.run_id,
    pinnedAt: new Date(row.pinned_at),
  }));
}
