import { pgliteRunner, pgRunner, type SqlRunner } from "../sql-runner.js";
import type { StoreDriver } from "../store-driver.js";

/**
 * The raw-SQL seam for a store's driver: how tests and tools run report queries directly
 * (`runnerOf(driverOf(store))`). Both drivers apply the store's schema (search_path) on
 * their connections already.
 */
export function runnerOf(driver: StoreDriver): SqlRunner {
  return driver.kind === "postgres" ? pgRunner(driver.pool) : pgliteRunner(driver.client);
}
