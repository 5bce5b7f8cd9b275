// Defaults the CLI prints in --help and the pipeline runs with: a module of their own
// (`@assay/core/run-defaults`) that loads nothing, so that --help stays light and prints
// what runs.

/**
 * Jobs in flight at once in `runLocal` (`assay run --concurrency`): enough to fill the
 * writer's batches.
 */
export const DEFAULT_RUN_CONCURRENCY = 4000;
