import { SqlStore } from "./sql-store.js";
import type { Store } from "./store.js";
import type { StoreDriver } from "./store-driver.js";

export { dropRunPartitions } from "./prune/drop-run-partitions.js";
export type { StoreDriver } from "./store-driver.js";

/**
 * The raw client behind a store, for benchmarks, tests and tools that reach under the
 * Store methods. Application code uses the methods: they check first that the store's
 * migrations are applied, which nothing done through the client does.
 */
export function driverOf(store: Store): StoreDriver {
  return SqlStore.driverOf(store);
}
