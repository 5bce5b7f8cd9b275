import { parentPort, workerData } from "node:worker_threads";
import type { FieldsSpec } from "@assay/core";
import { compileFields } from "./field-map.js";
import { parsedLinesJson } from "./parse-lines.js";
import type { ParseReply, ParseRequest } from "./parse-pool.js";

// The spec's field mapping, checked when the spec loaded: compiled once per thread.
const compiled = compileFields((workerData as { fields?: FieldsSpec }).fields);
const mapping = compiled.ok ? compiled.fields.mapping : undefined;

// One parse thread: batches of lines as bytes in, their outcomes out, in the order received.
parentPort?.on("message", (request: ParseRequest) => {
  let reply: ParseReply;
  try {
    if (!compiled.ok) throw new Error(`fields: ${compiled.field}: ${compiled.message}`);
    const options = { ...request.options, ...(mapping !== undefined && { mapping }) };
    reply = { json: parsedLinesJson(request.batch, request.maxLineBytes, options) };
  } catch (error) {
    reply = { error: error instanceof Error ? (error.stack ?? error.message) : String(error) };
  }
  parentPort?.postMessage(reply);
});
