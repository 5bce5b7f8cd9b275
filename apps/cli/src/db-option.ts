/** Help of `--db` for the commands that open the store on their own (not the distributed ones). */
export const DB_OPTION_HELP =
  "postgres:// URL or folder of the embedded store (default: $DATABASE_URL, else .assay/)";

/** `--db-schema`, the same on every command that opens the store. */
export const DB_SCHEMA_OPTION = [
  "--db-schema <name>",
  "Postgres schema holding Assay's tables (default: the server's search_path)",
] as const;
