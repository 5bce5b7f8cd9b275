import { ConfigError } from "@assay/core";
import { inTransaction } from "../in-transaction.js";
import { PRUNED_SUMMARY_KIND, runSummary } from "../queries/summary.js";
import { runnerOf } from "../reports/runner-of.js";
import { trySessionLock } from "../session-lock.js";
import type { StoreDriver } from "../store-driver.js";
import { dropRunPartitions } from "./drop-run-partitions.js";

/**
 * Which runs' raw rows to drop: a run the age rules name (both given, it must meet both),
 * an abandoned run when `abandoned`, and each run of `runIds`.
 */
export interface PruneSelection {
  /** Runs started before this time. */
  startedBefore?: Date;
  /** All but the newest N runs (by start time), pruned or not. */
  keepLast?: number;
  /** Every abandoned run (`assay abandon`). */
  abandoned?: boolean;
  /** These runs, whatever their age. */
  runIds?: readonly string[];
}

export interface PrunedRun {
  runId: string;
  name: string | null;
  startedAt: Date;
  /** Abandoned: no rollups counted its rows (`samples` and `results` are 0). */
  abandoned: boolean;
  /** Samples and score rows dropped, as the run's rollups counted them. */
  samples: number;
  results: number;
  /** Bytes the run's partitions (rows and indexes) held. */
  bytes: number;
}

export interface SkippedRun {
  runId: string;
  startedAt: Date;
  /**
   * Why its raw rows stay: the rollups a pruned run is reported from are missing (an
   * unfinished run that will never finish is abandoned first), or it is its name's pinned
   * baseline (`assay baseline`), whose task rollups later runs are compared with.
   */
  reason: "unfinished" | "no rollups" | "pinned baseline";
}

export interface PruneOutcome {
  /** Dropped, or with `dryRun`, those that would be. */
  pruned: PrunedRun[];
  skipped: SkippedRun[];
  /**
   * Runs an earlier prune marked pruned but stopped before dropping all their partitions
   * (killed, connection lost); this one dropped the rest. Empty with `dryRun`.
   */
  completed: string[];
}

interface RunRow {
  id: string;
  name: string | null;
  created_at: Date | string;
  finished_at: Date | string | null;
  abandoned: boolean;
  rolled_up: boolean;
  /** Its name's pinned baseline: kept, or later runs could not be compared with it. */
  pinned: boolean;
  samples: string | number | null;
  results: string | number | null;
  pruned: boolean;
  /** Bytes the run's partitions (rows and indexes) hold. */
  bytes: string | number;
  /** How many of its partitions exist: 0 once pruned, unless a prune stopped half-way. */
  partitions: number;
}

// Newest first, as `--keep-last` counts; already pruned runs count but are not listed.
// With each run, what its partitions hold and how many are left: catalog reads only.
const RUNS = `
  SELECT r.id, r.name, r.created_at, r.finished_at, r.abandoned_at IS NOT NULL AS abandoned,
         ru.run_id IS NOT NULL AS rolled_up,
         EXISTS (SELECT 1 FROM run_baselines b WHERE b.run_id = r.id) AS pinned,
         ru.samples, ru.results, r.pruned_at IS NOT NULL AS pruned, p.bytes, p.partitions
  FROM runs r LEFT JOIN run_rollups ru ON ru.run_id = r.id
  CROSS JOIN LATERAL (
    SELECT coalesce(sum(pg_total_relation_size(rel)), 0)::bigint AS bytes,
           count(rel)::int AS partitions
    FROM unnest(assay_run_partitioned_tables()) AS t,
         to_regclass(quote_ident(assay_run_partition(t, r.id))) AS rel
  ) p
  ORDER BY r.created_at DESC, r.id DESC`;

/**
 * Drops the raw rows (the partitions) of the finished, rolled-up runs and the abandoned
 * runs the selection names (an abandoned run keeps its runs row, shown as abandoned):
 * each run is first marked `pruned_at` in a transaction of its own, then its partitions are
 * dropped one by one (drop-run-partitions.ts). The runs row and every rollup stay,
 * so reports with default settings and trends keep the run's figures. A run without
 * rollups is skipped: nothing would show its figures once its raw rows were gone. One
 * prune runs at a time on a server store (a session advisory lock, session-lock.ts): a
 * second is refused at once with a `PruneInProgressError`; a dry run only reads and takes
 * no lock.
 */
export async function pruneRuns(
  driver: StoreDriver,
  selection: PruneSelection,
  options: { dryRun: boolean },
): Promise<PruneOutcome> {
  if (options.dryRun) return prune(driver, selection, options);
  const lock = await trySessionLock(driver, PRUNE_LOCK, []);
  if (lock === null) {
    throw new PruneInProgressError(
      "Cannot prune: another assay prune is running on this store now. Two at once would " +
        "detach the same partitions under each other. Wait for it to end; a prune that " +
        "stopped half-way is finished by the next one.",
    );
  }
  try {
    return await prune(driver, selection, options);
  } finally {
    await lock.release();
  }
}

/** Another process is pruning the same store. */
export class PruneInProgressError extends ConfigError {
  override name = "PruneInProgressError";
}

// One prune at a time per store (schema): advisory locks are per database.
const PRUNE_LOCK = "hashtextextended('assay.prune:' || current_schema(), 0)";

async function prune(
  driver: StoreDriver,
  selection: PruneSelection,
  options: { dryRun: boolean },
): Promise<PruneOutcome> {
  const runner = runnerOf(driver);
  const { rows } = await runner.query<RunRow>(RUNS);
  const outcome: PruneOutcome = { pruned: [], skipped: [], completed: [] };
  for (const [index, run] of rows.entries()) {
    if (run.pruned) {
      if (!options.dryRun && run.partitions > 0) {
        await dropPartitions(driver, run.id);
        outcome.completed.push(run.id);
      }
      continue;
    }
    if (!selected(selection, index, run)) continue;
    const startedAt = new Date(run.created_at);
    if (run.pinned) {
      outcome.skipped.push({ runId: run.id, startedAt, reason: "pinned baseline" });
      continue;
    }
    if (!run.abandoned && (run.finished_at === null || !run.rolled_up)) {
      const reason = run.finished_at === null ? "unfinished" : "no rollups";
      outcome.skipped.push({ runId: run.id, startedAt, reason });
      continue;
    }
    if (!options.dryRun && !(await pruneRun(driver, run.id))) continue;
    outcome.pruned.push({
      runId: run.id,
      name: run.name,
      startedAt,
      abandoned: run.abandoned,
      samples: Number(run.samples ?? 0),
      results: Number(run.results ?? 0),
      bytes: Number(run.bytes),
    });
  }
  return outcome;
}

function selected(selection: PruneSelection, newestIndex: number, run: RunRow): boolean {
  if (selection.runIds?.includes(run.id) === true) return true;
  if (selection.abandoned === true && run.abandoned) return true;
  if (selection.keepLast === undefined && selection.startedBefore === undefined) return false;
  if (selection.keepLast !== undefined && newestIndex < selection.keepLast) return false;
  const startedAt = new Date(run.created_at);
  if (selection.startedBefore !== undefined && startedAt >= selection.startedBefore) return false;
  return true;
}

/**
 * Marks one run pruned, keeping its summary, then drops its partitions. The run is checked
 * again under its row lock: a resume or selection rerun that cleared its rollups since the
 * list was read keeps its rows. Once marked, every path that reads raw rows refuses the run,
 * so its partitions can go outside the transaction, without holding up other runs' writers
 * (`dropRunPartitions`); a prune stopped before they are gone finishes on the next call.
 */
async function pruneRun(driver: StoreDriver, runId: string): Promise<boolean> {
  const marked = await inTransaction(driver, async (runner) => {
    // A pin made since the list was read keeps the run too (pinning locks nothing of the
    // run's row, so this reads the pins as committed now).
    const { rows } = await runner.query<{ ok: boolean }>(
      `SELECT r.pruned_at IS NULL
              AND NOT EXISTS (SELECT 1 FROM run_baselines b WHERE b.run_id = r.id)
              AND (r.abandoned_at IS NOT NULL OR (r.finished_at IS NOT NULL
                   AND EXISTS (SELECT 1 FROM run_rollups ru WHERE ru.run_id = r.id))) AS ok
       FROM runs r WHERE r.id = $1 FOR UPDATE OF r`,
      [runId],
    );
    if (rows[0]?.ok !== true) return false;
    // The summary `assay report` prints above the figures reads raw rows: keep it as it is.
    const summary = await runSummary(runner, runId);
    await runner.query(
      `INSERT INTO summary_rollups (run_id, kind, position, summary) VALUES ($1, $2, 0, $3)
       ON CONFLICT (run_id, kind, position) DO UPDATE SET summary = excluded.summary`,
      [runId, PRUNED_SUMMARY_KIND, JSON.stringify(summary)],
    );
    await runner.query("DELETE FROM answer_staging WHERE run_id = $1", [runId]);
    await runner.query("UPDATE runs SET pruned_at = now() WHERE id = $1", [runId]);
    return true;
  });
  if (marked) await dropPartitions(driver, runId);
  return marked;
}

function dropPartitions(driver: StoreDriver, runId: string): Promise<void> {
  return dropRunPartitions(runnerOf(driver), runId, { concurrently: driver.kind === "postgres" });
}
