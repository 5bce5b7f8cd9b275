import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";
import type { InferenceSession } from "onnxruntime-node";
import type { PastLayout } from "./past-layout.js";
import { WORKER_SOURCE } from "./worker-source.js";

/** Graph inputs/outputs as reported by the session (plain data, copied from the worker). */
export interface SessionInfo {
  inputNames: readonly string[];
  outputNames: readonly string[];
  inputMetadata: readonly TensorMetadata[];
  outputMetadata: readonly TensorMetadata[];
}

export interface TensorMetadata {
  name: string;
  isTensor: boolean;
  type?: string;
  shape: readonly (number | string)[];
}

/** One forward pass of a prefix tree: rows are tree nodes, their past their parents' caches. */
export interface TreePass {
  feeds: Record<string, Int64Feed>;
  nodes: number[];
  /** Per row: the parent node (−1: no past), its cache length, this node's own tokens. */
  parents: number[];
  pastLengths: number[];
  newLengths: number[];
  /** Per row: children still to run on this node's cache (0: not kept). */
  children: number[];
  /** The widest past of the pass: every row's past is padded to it. */
  pastWidth: number;
  /** [row, offset in the row's new tokens, request index]. */
  reads: [number, number, number][];
}

export interface TreeMessage {
  output: string;
  past: PastLayout;
  passes: TreePass[];
  requests: number;
}

export interface Int64Feed {
  data: BigInt64Array;
  dims: number[];
}

interface ResultMessage {
  type: "result";
  id: number;
  width?: number;
  /** Bytes of the whole output tensor onnxruntime returned. */
  bytes?: number;
  data?: Float32Array;
  error?: string;
}

/** An onnxruntime session living in a worker thread, so inference never blocks the event loop. */
export class WorkerSession implements SessionInfo {
  readonly #worker: Worker;
  readonly #calls = new Map<
    number,
    { resolve: (rows: Float32Array[]) => void; reject: (e: Error) => void }
  >();
  #nextId = 0;
  /** Output tensor bytes and rows over every pass, to compare graphs (model check). */
  readonly outputTotals = { bytes: 0, rows: 0 };

  private constructor(
    worker: Worker,
    readonly inputNames: readonly string[],
    readonly outputNames: readonly string[],
    readonly inputMetadata: readonly TensorMetadata[],
    readonly outputMetadata: readonly TensorMetadata[],
  ) {
    this.#worker = worker;
    worker.on("message", (message: ResultMessage | { type: string }) => {
      if (message.type === "result") this.#settle(message as ResultMessage);
    });
    worker.on("error", (error) => this.#failAll(error));
    worker.on("exit", (code) =>
      this.#failAll(new Error(`inference thread exited with code ${code}`)),
    );
    worker.unref();
  }

  static async create(
    modelPath: string,
    sessionOptions: InferenceSession.SessionOptions,
  ): Promise<WorkerSession> {
    const ortPath = createRequire(import.meta.url).resolve("onnxruntime-node");
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { ortPath, modelPath, sessionOptions },
    });
    const ready = await new Promise<{
      inputNames: string[];
      outputNames: string[];
      inputMetadata: TensorMetadata[];
      outputMetadata: TensorMetadata[];
    }>((resolve, reject) => {
      worker.once("message", (message: { type: string; message?: string }) => {
        if (message.type === "ready") resolve(message as never);
        else reject(new Error(message.message ?? "the inference thread failed to start"));
      });
      worker.once("error", reject);
    }).catch(async (error: unknown) => {
      await worker.terminate();
      throw error;
    });
    return new WorkerSession(
      worker,
      ready.inputNames,
      ready.outputNames,
      ready.inputMetadata,
      ready.outputMetadata,
    );
  }

  /**
   * One forward pass; returns `output` at `positions[r]` of each row r. `emptyPast`: the
   * cache layout of a with-past graph, fed an empty past.
   */
  run(
    feeds: Record<string, Int64Feed>,
    output: string,
    positions: number[],
    emptyPast: PastLayout | null = null,
  ): Promise<Float32Array[]> {
    const transfer = Object.values(feeds).map((feed) => feed.data.buffer as ArrayBuffer);
    return this.#call({ type: "run", feeds, output, positions, emptyPast }, transfer);
  }

  /**
   * The passes of a prefix tree, run back to back in the inference thread, where every
   * node's cache stays until its children have run; returns `output` at each request's read.
   */
  runTree(tree: TreeMessage): Promise<Float32Array[]> {
    const transfer = tree.passes.flatMap((pass) =>
      Object.values(pass.feeds).map((feed) => feed.data.buffer as ArrayBuffer),
    );
    return this.#call({ type: "tree", ...tree }, transfer);
  }

  #call(message: Record<string, unknown>, transfer: ArrayBuffer[]): Promise<Float32Array[]> {
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      this.#calls.set(id, { resolve, reject });
      this.#worker.ref();
      this.#worker.postMessage({ ...message, id }, transfer);
    });
  }

  async release(): Promise<void> {
    // The thread is unref'd between calls; without a ref the event loop could empty while
    // this reply is awaited, and the process would end with the release still pending.
    this.#worker.ref();
    await new Promise<void>((resolve) => {
      // Only the thread's "released" reply: terminating it while onnxruntime is still
      // releasing the session (or running) aborts the whole process from native code.
      const onMessage = (message: { type?: string }) => {
        if (message.type !== "released") return;
        this.#worker.off("message", onMessage);
        resolve();
      };
      this.#worker.on("message", onMessage);
      // Held while releasing: an unref'd thread would let the process exit before the reply.
      this.#worker.ref();
      this.#worker.postMessage({ type: "release" });
    });
    await this.#worker.terminate();
  }

  #settle(message: ResultMessage): void {
    const call = this.#calls.get(message.id);
    this.#calls.delete(message.id);
    if (this.#calls.size === 0) this.#worker.unref();
    if (call === undefined) return;
    if (message.error !== undefined || message.data === undefined || message.width === undefined) {
      call.reject(new Error(`onnxruntime: ${message.error ?? "no output"}`));
      return;
    }
    const { data, width } = message;
    const count = width === 0 ? 0 : data.length / width;
    const rows = Array.from({ length: count }, (_, r) => data.subarray(r * width, (r + 1) * width));
    this.outputTotals.bytes += message.bytes ?? 0;
    this.outputTotals.rows += count;
    call.resolve(rows);
  }

  #failAll(error: Error): void {
    for (const call of this.#calls.values()) call.reject(error);
    this.#calls.clear();
  }
}
