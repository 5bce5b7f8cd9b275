export * from "./bullmq/index.js";
export * from "./local.js";
