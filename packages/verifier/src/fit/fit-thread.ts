import type { Worker } from "node:worker_threads";
import { startModuleThread } from "@assay/core";
import type { ChatSpec } from "../chat/chat-template.js";
import type { PromptPiece } from "../template/resolve-prompt.js";
import type { FitOptions, FitResult } from "./fit.js";

type Reply = { id: number; result?: FitResult; error?: string };

/**
 * Tokenization and fit in a worker thread: tokenizing a long question takes 50–500 ms of
 * pure JavaScript, which on the main thread would stall BullMQ's lock renewal.
 */
export class FitThread {
  readonly #worker: Worker;
  readonly #calls = new Map<
    number,
    { resolve: (r: FitResult) => void; reject: (e: Error) => void }
  >();
  #nextId = 0;

  private constructor(worker: Worker) {
    this.#worker = worker;
    worker.on("message", (reply: Reply) => this.#settle(reply));
    worker.on("error", (error) => this.#failAll(error));
    worker.unref();
  }

  /** `chat`: the model's chat template, rendered around every prompt this thread fits. */
  static async start(dir: string, chat: ChatSpec | null = null): Promise<FitThread> {
    const worker = spawn(dir, chat);
    await new Promise<void>((resolve, reject) => {
      worker.once("message", () => resolve());
      worker.once("error", reject);
    });
    return new FitThread(worker);
  }

  fit(pieces: PromptPiece[], options: FitOptions): Promise<FitResult> {
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      this.#calls.set(id, { resolve, reject });
      this.#worker.ref();
      this.#worker.postMessage({ id, pieces, options });
    });
  }

  async close(): Promise<void> {
    await this.#worker.terminate();
  }

  #settle(reply: Reply): void {
    const call = this.#calls.get(reply.id);
    this.#calls.delete(reply.id);
    if (this.#calls.size === 0) this.#worker.unref();
    if (call === undefined) return;
    if (reply.result !== undefined) call.resolve(reply.result);
    else call.reject(new Error(`fit thread: ${reply.error ?? "no result"}`));
  }

  #failAll(error: Error): void {
    for (const call of this.#calls.values()) call.reject(error);
    this.#calls.clear();
  }
}

function spawn(dir: string, chat: ChatSpec | null): Worker {
  return startModuleThread(import.meta.url, "fit-worker", { dir, chat });
}
