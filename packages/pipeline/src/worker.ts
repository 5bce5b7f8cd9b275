// The distributed worker, apart from the package's index: its metrics (prom-client and
// the OpenTelemetry API it brings, ~85 modules) load only for `assay worker`.
export { isRedisUnreachable, RedisOutage } from "./worker/redis-outage.js";
export { type RunWorkerOptions, runWorker } from "./worker/run-worker.js";
export type { ServiceName, ServiceState } from "./worker/service-outage.js";
export type { WorkerHealth } from "./worker/worker-health.js";
export type { VerifierTotals } from "./worker/worker-metrics.js";
