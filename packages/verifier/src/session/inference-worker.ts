import { parentPort, workerData } from "node:worker_threads";
import { InferenceSession, Tensor } from "onnxruntime-node";
import type {
  InferenceReply,
  InferenceRequest,
  InferenceThreadData,
  Int64Feed,
  RowsMessage,
  TensorMetadata,
  TreeMessage,
  TreePass,
} from "./inference-messages.js";
import type { PastLayout } from "./past-layout.js";
import { pastInput, presentOutput } from "./past-layout.js";

/**
 * The inference thread, started by worker-session.ts. onnxruntime-node's `session.run` is
 * synchronous on the calling thread (its promise only defers the call with setImmediate), so
 * running it on the main thread would block the event loop for a whole batch. This thread
 * owns the session; the main thread only posts feeds and reads results.
 */
const port = parentPort;
if (port === null) throw new Error("inference-worker must run in a worker thread");
const { modelPath, sessionOptions } = workerData as InferenceThreadData;
const KINDS = ["key", "value"] as const;
let session: InferenceSession | undefined;

type Outputs = InferenceSession.OnnxValueMapType;
interface Read {
  width: number;
  bytes: number;
  out: Float32Array;
}

function reply(message: InferenceReply, transfer: ArrayBuffer[] = []): void {
  port?.postMessage(message, transfer);
}

function messageOf(error: unknown): string {
  return String((error as Error | undefined)?.message || error);
}

function metadata(list: readonly InferenceSession.ValueMetadata[]): TensorMetadata[] {
  return list.map((m) => ({
    name: m.name,
    isTensor: m.isTensor,
    type: m.isTensor ? m.type : undefined,
    shape: m.isTensor ? [...m.shape] : [],
  }));
}

async function init(): Promise<void> {
  try {
    session = await InferenceSession.create(modelPath, sessionOptions);
    reply({
      type: "ready",
      inputNames: [...session.inputNames],
      outputNames: [...session.outputNames],
      inputMetadata: metadata(session.inputMetadata),
      outputMetadata: metadata(session.outputMetadata),
    });
  } catch (error) {
    reply({ type: "error", message: messageOf(error) });
  }
}

function opened(): InferenceSession {
  if (session === undefined) throw new Error("the session is not open");
  return session;
}

function int64(feeds: Record<string, Int64Feed>): Record<string, Tensor> {
  const tensors: Record<string, Tensor> = {};
  for (const [name, value] of Object.entries(feeds)) {
    tensors[name] = new Tensor("int64", value.data, value.dims);
  }
  return tensors;
}

/** A float output of a run, with its shape; the graph must have returned it. */
function floatOutput(result: Outputs, name: string): { data: Float32Array; dims: number[] } {
  const tensor = result[name] as Tensor | undefined;
  if (tensor === undefined) throw new Error(`the graph returned no \`${name}\``);
  return { data: tensor.data as Float32Array, dims: [...tensor.dims] };
}

// A graph exported with past key values still needs them when nothing is reused: empty ones.
function addEmptyPast(tensors: Record<string, Tensor>, past: PastLayout | null, rows: number) {
  if (past === null) return;
  for (let layer = 0; layer < past.layers; layer++) {
    for (const kind of KINDS) {
      tensors[pastInput(layer, kind)] = new Tensor("float32", new Float32Array(0), [
        rows,
        past.heads,
        0,
        past.headDim,
      ]);
    }
  }
}

async function runRows(message: RowsMessage): Promise<Read> {
  const { feeds, output, positions, emptyPast } = message;
  const tensors = int64(feeds);
  addEmptyPast(tensors, emptyPast, positions.length);
  const { data, dims } = floatOutput(await opened().run(tensors, [output]), output);
  const bytes = data.byteLength;
  if (dims.length === 2) {
    // A prepared graph already returns one vector per row.
    return { width: dims[1] as number, bytes, out: new Float32Array(data) };
  }
  const length = dims[1] as number;
  const width = dims[2] as number;
  const out = new Float32Array(positions.length * width);
  positions.forEach((position, row) => {
    const offset = (row * length + position) * width;
    out.set(data.subarray(offset, offset + width), row * width);
  });
  return { width, bytes, out };
}

// Runs the passes of a prefix tree (see prefix-tree.ts and model-runner.ts). Each node's
// keys and values stay here, in this thread, until its last child has run: a row's past is
// its parent's cache, copied into a [rows, heads, widest past, head dim] tensor whose gap
// after a shorter past is masked out by attention_mask.
async function runTree(message: TreeMessage): Promise<Read> {
  const { output, past, passes, requests } = message;
  /** Node → its cache, one array per layer and kind (slot layer * 2 + 0 for key, + 1 value). */
  const cache = new Map<number, Float32Array[]>();
  /** Node → children that have still to read its cache. */
  const pending = new Map<number, number>();
  let out: Float32Array | null = null;
  let width = 0;
  let bytes = 0;
  for (const pass of passes) {
    const tensors = int64(pass.feeds);
    const wanted = [output];
    // A pass whose rows have no children needs no cache back (on CUDA: no copy to the host).
    const keeps = pass.children.some((count) => count > 0);
    for (let layer = 0; layer < past.layers; layer++) {
      for (const kind of KINDS) {
        const slot = layer * 2 + (kind === "key" ? 0 : 1);
        tensors[pastInput(layer, kind)] = pastTensor(pass, past, slot, cache);
        if (keeps) wanted.push(presentOutput(layer, kind));
      }
    }
    const result = await opened().run(tensors, wanted);
    const logits = floatOutput(result, output);
    // A prepared graph returns [rows, width], each row already at its read (score_position).
    const prepared = logits.dims.length === 2;
    const steps = prepared ? 1 : (logits.dims[1] as number);
    width = logits.dims.at(-1) as number;
    bytes += logits.data.byteLength;
    out ??= new Float32Array(requests * width);
    for (const [row, offset, request] of pass.reads) {
      const at = (row * steps + (prepared ? 0 : offset)) * width;
      out.set(logits.data.subarray(at, at + width), request * width);
    }
    pass.nodes.forEach((node, row) => {
      const children = pass.children[row] as number;
      if (children > 0) {
        cache.set(node, keepRow(result, row, pass, past));
        pending.set(node, children);
      }
      const parent = pass.parents[row] as number;
      if (parent >= 0) {
        const left = (pending.get(parent) as number) - 1;
        pending.set(parent, left);
        if (left === 0) cache.delete(parent);
      }
    });
  }
  return { width, bytes, out: out ?? new Float32Array(0) };
}

/** One layer's key or value past for a pass: each row's parent cache, padded to the widest. */
function pastTensor(
  pass: TreePass,
  past: PastLayout,
  slot: number,
  cache: Map<number, Float32Array[]>,
): Tensor {
  const { heads, headDim } = past;
  const rows = pass.nodes.length;
  const wide = pass.pastWidth;
  const data = new Float32Array(rows * heads * wide * headDim);
  pass.parents.forEach((parent, row) => {
    if (parent < 0) return;
    const source = cache.get(parent)?.[slot];
    if (source === undefined) throw new Error(`prefix tree: node ${parent} has no cache`);
    const length = pass.pastLengths[row] as number;
    for (let h = 0; h < heads; h++) {
      const from = source.subarray(h * length * headDim, (h + 1) * length * headDim);
      data.set(from, (row * heads + h) * wide * headDim);
    }
  });
  return new Tensor("float32", data, [rows, heads, wide, headDim]);
}

// Row `row` of every present tensor, without the gap between its past and its new tokens:
// [heads, past + new, head dim].
function keepRow(result: Outputs, row: number, pass: TreePass, past: PastLayout): Float32Array[] {
  const { layers, heads, headDim } = past;
  const wide = pass.pastWidth;
  const pastLength = pass.pastLengths[row] as number;
  const newLength = pass.newLengths[row] as number;
  const total = pastLength + newLength;
  const kept: Float32Array[] = [];
  for (let layer = 0; layer < layers; layer++) {
    for (const kind of KINDS) {
      const present = floatOutput(result, presentOutput(layer, kind));
      const span = present.dims[2] as number;
      const copy = new Float32Array(heads * total * headDim);
      for (let h = 0; h < heads; h++) {
        const base = (row * heads + h) * span * headDim;
        copy.set(present.data.subarray(base, base + pastLength * headDim), h * total * headDim);
        copy.set(
          present.data.subarray(base + wide * headDim, base + (wide + newLength) * headDim),
          (h * total + pastLength) * headDim,
        );
      }
      kept.push(copy);
    }
  }
  return kept;
}

port.on("message", async (message: InferenceRequest) => {
  if (message.type === "release") {
    if (session !== undefined) await session.release();
    reply({ type: "released" });
    return;
  }
  const { id } = message;
  try {
    const { width, bytes, out } =
      message.type === "tree" ? await runTree(message) : await runRows(message);
    reply({ type: "result", id, width, bytes, data: out }, [out.buffer as ArrayBuffer]);
  } catch (error) {
    reply({ type: "result", id, error: messageOf(error) });
  }
});

await init();
