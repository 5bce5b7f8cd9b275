import type { Pool } from "@assay/core";

/**
 * Jobs in flight per worker process when --concurrency is not given. The worker uses it
 * and `assay worker --help` prints it, so the help cannot drift from what runs.
 */
export const DEFAULT_WORKER_CONCURRENCY: Readonly<Record<Pool, number>> = { cpu: 200, gpu: 32 };
