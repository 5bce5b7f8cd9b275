import { runPartitions } from "../run-partitions.js";
import type { SqlRunner } from "../sql-runner.js";

/**
 * Drops a pruned run's partitions, one table at a time, outside any transaction, so that a
 * night being written meanwhile is never held up. On a server, each partition is first
 * detached CONCURRENTLY: that takes a SHARE UPDATE EXCLUSIVE lock on the parent, which
 * writers (ROW EXCLUSIVE) and readers (ACCESS SHARE) do not wait for, then waits for the
 * transactions that might still read the partition; dropping it as it stands would need
 * ACCESS EXCLUSIVE on the parent, which queues every later writer behind any long query.
 * The detached table is then dropped with no lock on the parent. A prune stopped between
 * the two (killed, its connection lost) leaves the detach pending: the next call finishes
 * it (FINALIZE). The embedded store has one connection, so nothing can wait on it there.
 */
export async function dropRunPartitions(
  runner: SqlRunner,
  runId: string,
  options: { concurrently: boolean },
): Promise<void> {
  for (const partition of await runPartitions(runner, [runId])) {
    if (!partition.present) continue;
    if (options.concurrently && partition.detachPending !== null) {
      const how = partition.detachPending ? "FINALIZE" : "CONCURRENTLY";
      await runner.query(
        `ALTER TABLE ${partition.table} DETACH PARTITION ${partition.name} ${how}`,
      );
    }
    await runner.query(`DROP TABLE IF EXISTS ${partition.name}`);
  }
}
