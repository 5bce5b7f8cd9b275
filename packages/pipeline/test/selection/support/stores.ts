import { openTestStore, type TestStore } from "@assay/test-support/stores";

export type { TestStore };

/** A migrated store of each driver, each in its own folder or schema. */
export const DRIVERS = {
  pglite: () => openTestStore("pglite"),
  postgres: () => openTestStore("postgres"),
};
