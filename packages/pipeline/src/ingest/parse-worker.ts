import { parentPort } from "node:worker_threads";
import { parseLines } from "./parse-lines.js";
import type { ParseReply, ParseRequest } from "./parse-pool.js";

// One parse thread: batches of raw lines in, their outcomes out, in the order received.
parentPort?.on("message", (request: ParseRequest) => {
  let reply: ParseReply;
  try {
    reply = { outcomes: parseLines(request.lines, request.maxLineBytes) };
  } catch (error) {
    reply = { error: error instanceof Error ? (error.stack ?? error.message) : String(error) };
  }
  parentPort?.postMessage(reply);
});
