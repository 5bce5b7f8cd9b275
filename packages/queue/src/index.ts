export * from "./bullmq/index.js";
export { LocalTransport, type LocalTransportOptions } from "./local-transport.js";
export type { ConsumeOptions, Consumer, JobHandler, Transport } from "./transport.js";
