import { ROLLUP_TABLES } from "./reports/rollups/rollup-tables.js";
import { runnerOf } from "./reports/runner-of.js";
import { type RawTable, runPartitions } from "./run-partitions.js";
import type { StoreDriver } from "./store-driver.js";

/** The partitioned tables a run writes as it is scored (migration 0015), and the others. */
const WRITTEN_PARTITIONED: readonly RawTable[] = ["samples", "scores", "truncations", "usage"];
const WRITTEN_TABLES = ["runs", "input_errors"];

/** The tables written from those once the run completes: its selections and rollups. */
const DERIVED_PARTITIONED: readonly RawTable[] = ["selections"];
const DERIVED_TABLES = ROLLUP_TABLES;

/**
 * Refreshes the planner's statistics of the tables a run wrote (`written`), or of its
 * selections and rollups (`derived`). Autovacuum would do it in time, but it may be off or
 * behind; until then the planner takes a table of millions of rows for a few and picks
 * plans (nested loops) that take hours instead of seconds. ANALYZE reads a fixed sample of
 * each table (a second or so on the largest), so it is cheap next to a run. A user who
 * does not own the tables gets a server warning and the tables are left as they are.
 *
 * Of the partitioned raw tables only the run's own partitions are analysed: ANALYZE of a
 * partitioned parent samples every partition again (a year of runs, each night), while a
 * report names its run, so the planner prunes to that run's partition and plans with its
 * statistics. Autovacuum analyses partitions on its own, never the parents.
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
}
