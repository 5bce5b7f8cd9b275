import { parentPort } from "node:worker_threads";
import { parseLineBytes } from "./parse-lines.js";
import type { ParseReply, ParseRequest } from "./parse-pool.js";

// One parse thread: batches of lines as bytes in, their outcomes out, in the order received.
parentPort?.on("message", (request: ParseRequest) => {
  let reply: ParseReply;
  try {
    reply = { outcomes: parseLineBytes(request.batch, request.maxLineBytes, request.options) };
  } catch (error) {
    reply = { error: error instanceof Error ? (error.stack ?? error.message) : String(error) };
  }
  parentPort?.postMessage(reply);
});
