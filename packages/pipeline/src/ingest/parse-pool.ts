import type { Worker } from "node:worker_threads";
import { type FieldsSpec, type LineParseOptions, startModuleThread } from "@assay/core";
import { type LineOutcome, outcomesOfReply } from "./parse-lines.js";
import type { LineBytes } from "./read-line-batches.js";

/** What a thread is told per batch; the mapping it compiles itself from `fields`. */
export type ThreadParseOptions = Omit<LineParseOptions, "mapping">;

export interface ParseRequest {
  batch: LineBytes;
  maxLineBytes: number;
  options: ThreadParseOptions;
}

/** `json`: the batch's lines as JSON arrays, in order (see `parsedLinesJson`). */
export type ParseReply = { json: string[] } | { error: string };

interface Thread {
  worker: Worker;
  /** Batches sent and not answered yet, oldest first. */
  calls: Call[];
}

interface Call {
  /** The number of the batch's first line: the reply does not repeat it. */
  firstLine: number;
  resolve: (outcomes: LineOutcome[]) => void;
  reject: (error: Error) => void;
}

/**
 * Threads that split, decode, parse and validate batches of dataset lines. Each thread answers its
 * batches in the order it got them, so `parse()` promises resolve per thread in order;
 * the caller awaits them in submission order to keep the file's line order.
 */
export class ParsePool {
  readonly #threads: Thread[];
  #next = 0;
  #failure: Error | undefined;
  #closing = false;

  /** `fields` is the spec's field mapping: each thread compiles it once and applies it. */
  constructor(size: number, fields?: FieldsSpec) {
    this.#threads = Array.from({ length: size }, () => {
      const thread: Thread = { worker: spawn(fields), calls: [] };
      thread.worker.on("message", (reply: ParseReply) => {
        const call = thread.calls.shift();
        if ("error" in reply) call?.reject(new Error(`parse thread: ${reply.error}`));
        else call?.resolve(outcomesOfReply(reply.json, call.firstLine));
      });
      thread.worker.on("error", (error) => this.#fail(error));
      thread.worker.on("exit", (code) => {
        if (code !== 0 && !this.#closing)
          this.#fail(new Error(`parse thread exited with code ${code}`));
      });
      return thread;
    });
  }

  /** Parses `batch` on a thread; its bytes go to that thread and are gone from this one. */
  parse(
    batch: LineBytes,
    maxLineBytes: number,
    options: ThreadParseOptions = {},
  ): Promise<LineOutcome[]> {
    if (this.#failure !== undefined) return Promise.reject(this.#failure);
    const thread = this.#threads[this.#next] as Thread;
    this.#next = (this.#next + 1) % this.#threads.length;
    return new Promise((resolve, reject) => {
      thread.calls.push({ firstLine: batch.firstLine, resolve, reject });
      // Moved, not copied: the reading thread's only cost per batch is this message.
      thread.worker.postMessage({ batch, maxLineBytes, options } satisfies ParseRequest, [
        batch.bytes.buffer,
      ]);
    });
  }

  async close(): Promise<void> {
    this.#closing = true;
    await Promise.all(this.#threads.map(({ worker }) => worker.terminate()));
  }

  #fail(error: Error): void {
    this.#failure ??= error;
    for (const thread of this.#threads) {
      for (const call of thread.calls.splice(0)) call.reject(error);
    }
  }
}

/**
 * A parse thread turns every line into objects that die once posted: with an 8 MB young
 * generation it spent ~20% of its time collecting them. At 32 MB, `assay run` of 200,000
 * samples on Postgres took 5.7–6.0 s of CPU instead of 6.6–6.8 s (2 runs each) for 22 MB
 * more peak RSS per thread (190 → 212 MB); 64 MB gained nothing more.
 */
const PARSE_YOUNG_GENERATION_MB = 32;

function spawn(fields: FieldsSpec | undefined): Worker {
  const data = fields === undefined ? {} : { fields };
  return startModuleThread(import.meta.url, "parse-worker", data, PARSE_YOUNG_GENERATION_MB);
}
