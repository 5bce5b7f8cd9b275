import type { SqlRunner } from "../sql-runner.js";

interface PartitionState {
  parent: string;
  name: string;
  /** null: the table is gone; false: attached; true: a detach began and did not finish. */
  detachPending: boolean | null;
  present: boolean;
}

// Each raw table's partition of the run, quoted, and how far a detach of it got.
const PARTITIONS = `
  SELECT quote_ident(t) AS parent, quote_ident(p.name) AS name,
         to_regclass(quote_ident(p.name)) IS NOT NULL AS present,
         i.inhdetachpending AS "detachPending"
  FROM unnest(assay_run_partitioned_tables()) AS t
  CROSS JOIN LATERAL (SELECT assay_run_partition(t, $1) AS name) AS p
  LEFT JOIN pg_inherits i ON i.inhrelid = to_regclass(quote_ident(p.name))`;

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
  for (const partition of await partitionStates(runner, runId)) {
    if (!partition.present) continue;
    if (options.concurrently && partition.detachPending !== null) {
      const how = partition.detachPending ? "FINALIZE" : "CONCURRENTLY";
      await runner.query(
        `ALTER TABLE ${partition.parent} DETACH PARTITION ${partition.name} ${how}`,
      );
    }
    await runner.query(`DROP TABLE IF EXISTS ${partition.name}`);
  }
}

async function partitionStates(runner: SqlRunner, runId: string): Promise<PartitionState[]> {
  return (await runner.query<PartitionState>(PARTITIONS, [runId])).rows;
}
