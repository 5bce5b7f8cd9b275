import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";
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

  static async start(dir: string): Promise<FitThread> {
    const worker = spawn(dir);
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

const fromSource = import.meta.url.endsWith(".ts");

/**
 * From dist/ the worker is fit-worker.js. From the TypeScript sources (tests, tsx) a small
 * bootstrap registers tsx in the thread first, then imports fit-worker.ts.
 */
function spawn(dir: string): Worker {
  const entry = new URL(fromSource ? "./fit-worker.ts" : "./fit-worker.js", import.meta.url);
  if (!fromSource) return new Worker(entry, { workerData: { dir } });
  const tsx = dirname(createRequire(import.meta.url).resolve("tsx/package.json"));
  const tsxApi = pathToFileURL(join(tsx, "dist", "esm", "api", "index.mjs")).href;
  const bootstrap = `
    const { workerData } = require("node:worker_threads");
    import(workerData.tsxApi).then(({ register }) => { register(); return import(workerData.entry); });
  `;
  return new Worker(bootstrap, {
    eval: true,
    workerData: { dir, tsxApi, entry: entry.href },
    execArgv: [
      ...process.execArgv.filter((a) => !a.startsWith("--conditions")),
      "--conditions=@assay/source",
    ],
  });
}
