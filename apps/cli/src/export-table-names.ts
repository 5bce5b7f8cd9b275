import type { ExportedTable } from "@assay/store";

/** `scores` (the default, with each score's task) or one of the run's other raw tables. */
export const EXPORT_TABLE_NAMES = [
  "scores",
  "samples",
  "truncations",
  "usage",
  "selections",
  "input_errors",
] as const satisfies readonly ("scores" | ExportedTable)[];

export type ExportTableName = (typeof EXPORT_TABLE_NAMES)[number];

// Written out (not read from @assay/store) so that `--help` stays light; a table the store
// exports and this list leaves out fails to compile here.
type Unlisted = Exclude<"scores" | ExportedTable, ExportTableName>;
const everyTableListed: [Unlisted] extends [never] ? true : Unlisted = true;
void everyTableListed;
