import type { Worker } from "node:worker_threads";
import { startModuleThread } from "@assay/core";
import type { InferenceSession } from "onnxruntime-node";
import type {
  InferenceCall,
  InferenceReply,
  InferenceRequest,
  InferenceThreadData,
  Int64Feed,
  ResultReply,
  SessionInfo,
  TensorMetadata,
  TreeMessage,
} from "./inference-messages.js";
import type { PastLayout } from "./past-layout.js";

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
    worker.on("message", (message: InferenceReply) => {
      if (message.type === "result") this.#settle(message);
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
    const data: InferenceThreadData = { modelPath, sessionOptions };
    const worker = startModuleThread(import.meta.url, "inference-worker", data);
    const ready = await new Promise<SessionInfo>((resolve, reject) => {
      worker.once("message", (message: InferenceReply) => {
        if (message.type === "ready") resolve(message);
        else if (message.type === "error") reject(new Error(message.message));
        else reject(new Error("the inference thread failed to start"));
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

  #call(message: InferenceCall, transfer: ArrayBuffer[]): Promise<Float32Array[]> {
    const id = this.#nextId++;
    const request: InferenceRequest = { ...message, id };
    return new Promise((resolve, reject) => {
      this.#calls.set(id, { resolve, reject });
      this.#worker.ref();
      this.#worker.postMessage(request, transfer);
    });
  }

  async release(): Promise<void> {
    // The thread is unref'd between calls; without a ref the event loop could empty while
    // this reply is awaited, and the process would end with the release still pending.
    this.#worker.ref();
    await new Promise<void>((resolve) => {
      // Only the thread's "released" reply: terminating it while onnxruntime is still
      // releasing the session (or running) aborts the whole process from native code.
      const onMessage = (message: InferenceReply) => {
        if (message.type !== "released") return;
        this.#worker.off("message", onMessage);
        resolve();
      };
      this.#worker.on("message", onMessage);
      // Held while releasing: an unref'd thread would let the process exit before the reply.
      this.#worker.ref();
      const request: InferenceRequest = { type: "release" };
      this.#worker.postMessage(request);
    });
    await this.#worker.terminate();
  }

  #settle(message: ResultReply): void {
    const call = this.#calls.get(message.id);
    this.#calls.delete(message.id);
    if (this.#calls.size === 0) this.#worker.unref();
    if (call === undefined) return;
    if ("error" in message) {
      call.reject(new Error(`onnxruntime: ${message.error}`));
      return;
    }
    const { data, width } = message;
    const count = width === 0 ? 0 : data.length / width;
    const rows = Array.from({ length: count }, (_, r) => data.subarray(r * width, (r + 1) * width));
    this.outputTotals.bytes += message.bytes;
    this.outputTotals.rows += count;
    call.resolve(rows);
  }

  #failAll(error: Error): void {
    for (const call of this.#calls.values()) call.reject(error);
    this.#calls.clear();
  }
}
