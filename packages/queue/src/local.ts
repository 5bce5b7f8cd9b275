// The in-process transport alone, without BullMQ and ioredis: `assay run` needs nothing
// more, and loading the Redis client would only slow its start.
export {
  type BatchJobHandler,
  type ConsumeBatchesOptions,
  LocalTransport,
  type LocalTransportOptions,
} from "./local-transport.js";
export type { ConsumeOptions, Consumer, JobAttempt, JobHandler, Transport } from "./transport.js";
