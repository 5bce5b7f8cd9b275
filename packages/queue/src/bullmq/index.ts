export {
  type BullmqConsumeOptions,
  BullmqTransport,
  type QueueCounts,
  type ServedQueue,
} from "./bullmq-transport.js";
export type { PausableConsumer } from "./consumer.js";
export { EnqueueAbortedError } from "./enqueue-aborted-error.js";
export { checkEvictionPolicy, type EvictionCheck } from "./eviction-policy.js";
export { jobOptionsOf } from "./job-options.js";
export { type KeyLayout, keyLayout } from "./key-layout.js";
export { type BullmqTransportOptions, resolveOptions } from "./options.js";
export type { OrphanedJobs, QueueHealth } from "./queue-health.js";
export {
  DEFAULT_PREFIX,
  gpuQueueName,
  identityOfQueueName,
  modelOf,
  queueNameFor,
  queueNameOf,
} from "./queue-names.js";
export {
  connectRedisOrCluster,
  type RedisConnection,
  scanKeys,
  serversOf,
} from "./redis-cluster.js";
export { connectRedis, type RedisConnectOptions } from "./redis-connection.js";
export { describeRedisFault } from "./redis-fault.js";
export {
  type CorruptJob,
  type FailedJob,
  failedJobsOf,
  moveSpelledQueueJobs,
  type RequeueResult,
  readFailedJobs,
  requeueJobs,
  retryFailedJobs,
} from "./run-jobs.js";
export { type CorruptData, corruptionOf, TolerantJob, TolerantQueue } from "./tolerant-job.js";
