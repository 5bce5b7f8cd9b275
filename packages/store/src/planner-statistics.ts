import { ROLLUP_TABLES } from "./reports/rollups/rollup-tables.js";
import { runnerOf } from "./reports/runner-of.js";
import type { StoreDriver } from "./store-driver.js";

/** The tables a run writes as it is scored. */
const WRITTEN_TABLES = ["runs", "samples", "scores", "truncations", "usage", "input_errors"];

/** The tables written from those once the run completes: its selections and rollups. */
const DERIVED_TABLES = ["selections", ...ROLLUP_TABLES];

/**
 * Refreshes the planner's statistics of the tables a run wrote (`written`), or of its
 * selections and rollups (`derived`). Autovacuum would do it in time, but it may be off or
 * behind; until then the planner takes a table of millions of rows for a few and picks
 * plans (nested loops) that take hours instead of seconds. ANALYZE reads a fixed sample of
 * each table (a second or so on the largest), so it is cheap next to a run. A user who
 * does not own the tables gets a server warning and the tables are left as they are.
 */
export async function refreshPlannerStatistics(
  driver: StoreDriver,
  tables: "written" | "derived",
): Promise<void> {
  const names = tables === "written" ? WRITTEN_TABLES : DERIVED_TABLES;
  await runnerOf(driver).query(`ANALYZE ${names.join(", ")}`);
}
