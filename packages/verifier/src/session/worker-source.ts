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

parentPort.on("message", async (message) => {
  if (message.type === "release") {
    if (session) await session.release();
    parentPort.postMessage({ type: "released" });
    return;
  }
  const { id, feeds, output, positions } = message;
  try {
    const tensors = {};
    for (const [name, value] of Object.entries(feeds)) tensors[name] = new ort.Tensor("int64", value.data, value.dims);
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
    parentPort.postMessage({ type: "result", id, width, bytes, data: out }, [out.buffer]);
  } catch (error) {
    parentPort.postMessage({ type: "result", id, error: String(error && error.message || error) });
  }
});

init();
`;
