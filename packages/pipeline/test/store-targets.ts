import type { Store } from "@assay/store";
import { type Driver, openTestStore, queryRows, type TestStore } from "@assay/test-support/stores";

export interface StoreTarget {
  name: Driver;
  open(): Promise<Store>;
  cleanup(): Promise<void>;
}

function target(name: Driver): StoreTarget {
  let opened: TestStore | undefined;
  return {
    name,
    open: async () => {
      opened = await openTestStore(name);
      return opened.store;
    },
    /** Closes the store and removes its folder or schema. */
    cleanup: async () => opened?.dispose(),
  };
}

export const pgliteTarget = (): StoreTarget => target("pglite");
export const postgresTarget = (): StoreTarget => target("postgres");

/** Runs SQL on the store's own connection, e.g. to simulate lost rows. */
export async function rawQuery(store: Store, sql: string): Promise<void> {
  await queryRows(store, sql);
}
