/**
 * The inference thread. onnxruntime-node's `session.run` is synchronous on the calling
 * thread (its promise only defers the call with setImmediate), so running it on the main
 * thread would block the event loop for a whole batch. This script owns the session in a
 * worker thread. It is plain JavaScript (an eval worker) so it runs the same from the
 * TypeScript sources and from dist/; onnxruntime-node is required by absolute path.
 */
export const WORKER_SOURCE = `
const { parentPort, workerData } = require("node:worker_threads");
const ort = require(workerData.ortPath);
let session;

function metadata(list) {
  return list.map((m) => ({ name: m.name, isTensor: m.isTensor, type: m.type, shape: m.shape ? [...m.shape] : [] }));
}

async function init() {
  try {
    session = await ort.InferenceSession.create(workerData.modelPath, workerData.sessionOptions);
    parentPort.postMessage({
      type: "ready",
      inputNames: [...session.inputNames],
      outputNames: [...session.outputNames],
      inputMetadata: metadata(session.inputMetadata),
      outputMetadata: metadata(session.outputMetadata),
    });
  } catch (error) {
    parentPort.postMessage({ type: "error", message: String(error && error.message || error) });
  }
}

function int64(feeds) {
  const tensors = {};
  for (const [name, value] of Object.entries(feeds)) tensors[name] = new ort.Tensor("int64", value.data, value.dims);
  return tensors;
}

// A graph exported with past key values still needs them when nothing is reused: empty ones.
function addEmptyPast(tensors, past, rows) {
  if (!past) return;
  for (let layer = 0; layer < past.layers; layer++) {
    for (const kind of ["key", "value"]) {
      tensors["past_key_values." + layer + "." + kind] =
        new ort.Tensor("float32", new Float32Array(0), [rows, past.heads, 0, past.headDim]);
    }
  }
}

async function runRows(message) {
  const { feeds, output, positions, emptyPast } = message;
  const tensors = int64(feeds);
  addEmptyPast(tensors, emptyPast, positions.length);
  const result = await session.run(tensors, [output]);
  const tensor = result[output];
  const data = tensor.data;
  const bytes = data.byteLength;
  let out;
  let width;
  if (tensor.dims.length === 2) {
    // A prepared graph already returns one vector per row.
    width = tensor.dims[1];
    out = new Float32Array(data);
  } else {
    const length = tensor.dims[1];
    width = tensor.dims[2];
    out = new Float32Array(positions.length * width);
    positions.forEach((position, row) => {
      const offset = (row * length + position) * width;
      out.set(data.subarray(offset, offset + width), row * width);
    });
  }
  return { width, bytes, out };
}

// Runs the passes of a prefix tree (see prefix-tree.ts and model-runner.ts). Each node's
// keys and values stay here, in this thread, until its last child has run: a row's past is
// its parent's cache, copied into a [rows, heads, widest past, head dim] tensor whose gap
// after a shorter past is masked out by attention_mask.
async function runTree(message) {
  const { output, past, passes, requests } = message;
  const { layers, heads, headDim } = past;
  const cache = new Map();
  const pending = new Map();
  let out = null;
  let width = 0;
  let bytes = 0;
  for (const pass of passes) {
    const rows = pass.nodes.length;
    const wide = pass.pastWidth;
    const tensors = int64(pass.feeds);
    const wanted = [output];
    // A pass whose rows have no children needs no cache back (on CUDA: no copy to the host).
    const keeps = pass.children.some((count) => count > 0);
    for (let layer = 0; layer < layers; layer++) {
      for (const kind of ["key", "value"]) {
        const slot = layer * 2 + (kind === "key" ? 0 : 1);
        const data = new Float32Array(rows * heads * wide * headDim);
        pass.parents.forEach((parent, row) => {
          if (parent < 0) return;
          const source = cache.get(parent)[slot];
          const length = pass.pastLengths[row];
          for (let h = 0; h < heads; h++) {
            const from = source.subarray(h * length * headDim, (h + 1) * length * headDim);
            data.set(from, (row * heads + h) * wide * headDim);
          }
        });
        tensors["past_key_values." + layer + "." + kind] =
          new ort.Tensor("float32", data, [rows, heads, wide, headDim]);
        if (keeps) wanted.push("present." + layer + "." + kind);
      }
    }
    const result = await session.run(tensors, wanted);
    const logits = result[output];
    // A prepared graph returns [rows, width], each row already at its read (score_position).
    const prepared = logits.dims.length === 2;
    const steps = prepared ? 1 : logits.dims[1];
    width = logits.dims.at(-1);
    bytes += logits.data.byteLength;
    if (out === null) out = new Float32Array(requests * width);
    for (const [row, offset, request] of pass.reads) {
      const at = (row * steps + (prepared ? 0 : offset)) * width;
      out.set(logits.data.subarray(at, at + width), request * width);
    }
    pass.nodes.forEach((node, row) => {
      if (pass.children[row] > 0) {
        cache.set(node, keepRow(result, row, pass, layers, heads, headDim));
        pending.set(node, pass.children[row]);
      }
      const parent = pass.parents[row];
      if (parent >= 0) {
        const left = pending.get(parent) - 1;
        pending.set(parent, left);
        if (left === 0) cache.delete(parent);
      }
    });
  }
  return { width, bytes, out: out ?? new Float32Array(0) };
}

// Row 'row' of every present tensor, without the gap between its past and its new tokens:
// [heads, past + new, head dim].
function keepRow(result, row, pass, layers, heads, headDim) {
  const wide = pass.pastWidth;
  const pastLength = pass.pastLengths[row];
  const newLength = pass.newLengths[row];
  const total = pastLength + newLength;
  const kept = [];
  for (let layer = 0; layer < layers; layer++) {
    for (const kind of ["key", "value"]) {
      const present = result["present." + layer + "." + kind];
      const span = present.dims[2];
      const data = present.data;
      const copy = new Float32Array(heads * total * headDim);
      for (let h = 0; h < heads; h++) {
        const base = (row * heads + h) * span * headDim;
        copy.set(data.subarray(base, base + pastLength * headDim), h * total * headDim);
        copy.set(
          data.subarray(base + wide * headDim, base + (wide + newLength) * headDim),
          (h * total + pastLength) * headDim,
        );
      }
      kept.push(copy);
    }
  }
  return kept;
}

parentPort.on("message", async (message) => {
  if (message.type === "release") {
    if (session) await session.release();
    parentPort.postMessage({ type: "released" });
    return;
  }
  const { id } = message;
  try {
    const { width, bytes, out } = message.type === "tree" ? await runTree(message) : await runRows(message);
    parentPort.postMessage({ type: "result", id, width, bytes, data: out }, [out.buffer]);
  } catch (error) {
    parentPort.postMessage({ type: "result", id, error: String(error && error.message || error) });
  }
});

init();
`;
