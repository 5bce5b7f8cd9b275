import { parentPort, workerData } from "node:worker_threads";
import type { ChatSpec } from "../chat/chat-template.js";
import { loadTokenizer } from "../model/tokenizer.js";
import type { PromptPiece } from "../template/resolve-prompt.js";
import { type FitOptions, fitPrompt } from "./fit.js";

/** The tokenization thread: fits prompts so long inputs never block the main event loop. */
const port = parentPort;
if (port === null) throw new Error("fit-worker must run in a worker thread");
const { dir, chat } = workerData as { dir: string; chat: ChatSpec | null };
const tokenizer = await loadTokenizer(dir);
port.on("message", (message: { id: number; pieces: PromptPiece[]; options: FitOptions }) => {
  try {
    port.postMessage({
      id: message.id,
      result: fitPrompt(tokenizer, message.pieces, message.options, chat),
    });
  } catch (error) {
    port.postMessage({ id: message.id, error: (error as Error).message });
  }
});
port.postMessage({ ready: true });
