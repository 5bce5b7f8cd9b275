import { ROLLUP_TABLES } from "./reports/rollups/rollup-tables.js";
import { runnerOf } from "./reports/runner-of.js";
import { RAW_TABLES, type RawTable, runPartitions } from "./run-partitions.js";
import type { StoreDriver } from "./store-driver.js";

/** The tables written from the scored rows once the run completes: selections and rollups. */
const DERIVED_PARTITIONED: readonly RawTable[] = ["selections", "task_rollup_chunks"];
// task_keys gains the run's new task ids as it completes (task-and-slice-rollups.ts).
const DERIVED_TABLES = [
  ...ROLLUP_TABLES.filter((t) => !(DERIVED_PARTITIONED as string[]).includes(t)),
  "task_keys",
];

/** The partitioned tables a run writes as it is scored (every other raw table), and the others. */
const WRITTEN_PARTITIONED = RAW_TABLES.filter((t) => !DERIVED_PARTITIONED.includes(t));
const WRITTEN_TABLES = ["runs", "input_errors"];

/**
 * Refreshes the planner's statistics of the tables a run wrote (`written`), or of its
 * selections and rollups (`derived`). Autovacuum would do it in time, but it may be off or
 * behind; until then the planner takes a table of millions of rows for a few and picks
 * plans (nested loops) that take hours instead of seconds. ANALYZE reads a fixed sample of
 * each table (a second or so on the largest), so it is cheap next to a run. A user who
 * does not own the tables gets a server warning and the tables are left as they are.
 *
 * The run's own partitions are analysed, and their partitioned parents whenever those have
 * no statistics yet or their rows have changed by more than a tenth since they were last
 * analysed. A query pruned to one partition is still planned as a scan of the parent, and
 * a join's estimate (how many rows match per task or sample) comes from the parent's
 * statistics: without them the planner guesses a handful of distinct values per column and
 * took a join of 360,000 rows for 225 million (a JIT-compiled plan, seconds lost).
 * Autovacuum never analyses a parent. Not every night: on Postgres before 18 an ANALYZE of
 * a parent also analyses every partition (a month of runs), while a month of nightly runs
 * of one shape has the same distributions whichever nights are in it.
 */
export async function refreshPlannerStatistics(
  driver: StoreDriver,
  tables: "written" | "derived",
  runId: string,
): Promise<void> {
  const runner = runnerOf(driver);
  const [partitioned, plain] =
    tables === "written"
      ? [WRITTEN_PARTITIONED, WRITTEN_TABLES]
      : [DERIVED_PARTITIONED, DERIVED_TABLES];
  const present = (await runPartitions(runner, [runId], partitioned)).filter((p) => p.present);
  await runner.query(`ANALYZE ${[...present.map((p) => p.name), ...plain].join(", ")}`);
  const { rows } = await runner.query<{ parent: string }>(STALE_PARENTS, [
    [...new Set(present.map((p) => p.table))],
  ]);
  if (rows.length > 0) await runner.query(`ANALYZE ${rows.map((r) => r.parent).join(", ")}`);
}

// A parent's reltuples is what its last ANALYZE counted (-1 before any); its partitions'
// are fresh, the run's just analysed. Catalog reads only (pg_stats: pg_statistic is for
// superusers).
const STALE_PARENTS = `
  SELECT quote_ident(p.relname) AS parent
  FROM unnest($1::text[]) AS t
  JOIN pg_class p ON p.oid = to_regclass(quote_ident(t))
  CROSS JOIN LATERAL (
    SELECT coalesce(sum(greatest(c.reltuples, 0)), 0) AS rows
    FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = p.oid
  ) parts
  WHERE NOT EXISTS (SELECT 1 FROM pg_stats s
                    WHERE s.schemaname = (SELECT nspname FROM pg_namespace WHERE oid = p.relnamespace)
                      AND s.tablename = p.relname AND s.inherited)
     OR abs(parts.rows - greatest(p.reltuples, 0)) > 0.1 * greatest(p.reltuples, 1)`;
