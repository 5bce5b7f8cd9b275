/** Help of `--db` for the commands that open the store on their own (not the distributed ones). */
export const DB_OPTION_HELP =
  "postgres:// URL or folder of the embedded store (default: $DATABASE_URL, else .assay/)";
