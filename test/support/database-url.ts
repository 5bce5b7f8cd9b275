import { readEnv } from "@assay/core";

/**
 * The Postgres database the tests and benchmarks use: $DATABASE_URL, else the local server
 * CI starts (.ci/services.sh). The one place this default is written.
 */
export const DATABASE_URL = readEnv().DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";
