import { type FileHandle, open } from "node:fs/promises";
import { bytesFieldHeader, type ProtoReader } from "@assay/verifier/tooling";
import onnxProto from "onnx-proto";
import { type GraphEntry, GraphField, ModelField, type OnnxModelFile } from "./onnx-file.js";
import type { RewritePlan } from "./plan-rewrite.js";

const { onnx } = onnxProto;

/** New bytes, or a byte range [start, end) copied from the original file. */
type Chunk = Uint8Array | { start: number; end: number };

/** Copies in pieces of this size: a multi-gigabyte .onnx never sits in memory. */
const COPY_PIECE = 8 * 1024 * 1024;

/**
 * Writes the prepared model: every field of the original file is copied byte for byte
 * (weights included, never decoded) except the nodes, outputs and value_info entries the
 * plan changes, and the graph gains the plan's nodes, inputs, outputs and initializers.
 */
export async function writePreparedOnnx(
  reader: ProtoReader,
  model: OnnxModelFile,
  plan: RewritePlan,
  target: string,
): Promise<number> {
  const graph = graphChunks(model, plan);
  const graphLength = graph.reduce((sum, chunk) => sum + chunkLength(chunk), 0);
  const chunks: Chunk[] = [];
  for (const field of model.modelFields) {
    if (field.number === ModelField.graph) {
      chunks.push(bytesFieldHeader(ModelField.graph, graphLength), ...graph);
    } else {
      chunks.push({ start: field.start, end: field.end });
    }
  }
  return writeChunks(reader, mergeRanges(chunks), target);
}

function graphChunks(model: OnnxModelFile, plan: RewritePlan): Chunk[] {
  const chunks: Chunk[] = [];
  let firstNode = true;
  for (const entry of model.entries) {
    if (entry.kind === "node") {
      if (firstNode) chunks.push(...plan.first.map(nodeField));
      firstNode = false;
      if (!plan.removed.has(entry.node)) {
        const replaced = plan.replaced.get(entry.node);
        chunks.push(replaced === undefined ? range(entry) : nodeField(replaced));
      }
      chunks.push(...(plan.after.get(entry.node) ?? []).map(nodeField));
    } else if (!isDropped(entry, plan)) {
      chunks.push(range(entry));
    }
  }
  for (const input of plan.inputs) {
    chunks.push(field(GraphField.input, onnx.ValueInfoProto.encode(input).finish()));
  }
  for (const output of plan.outputs) {
    chunks.push(field(GraphField.output, onnx.ValueInfoProto.encode(output).finish()));
  }
  for (const tensor of plan.initializers) {
    chunks.push(field(GraphField.initializer, onnx.TensorProto.encode(tensor).finish()));
  }
  return chunks;
}

function isDropped(entry: GraphEntry, plan: RewritePlan): boolean {
  if (entry.kind === "output") return plan.removedOutputs.has(entry.info.name ?? "");
  if (entry.kind === "valueInfo") return plan.droppedValueInfo.has(entry.info.name ?? "");
  if (entry.kind === "initializer") return plan.removedInitializers.has(entry.tensor.name);
  return false;
}

function range(entry: GraphEntry): Chunk {
  return { start: entry.field.start, end: entry.field.end };
}

function nodeField(node: InstanceType<typeof onnx.NodeProto>): Uint8Array {
  return field(GraphField.node, onnx.NodeProto.encode(node).finish());
}

function field(number: number, message: Uint8Array): Uint8Array {
  const header = bytesFieldHeader(number, message.length);
  const bytes = new Uint8Array(header.length + message.length);
  bytes.set(header);
  bytes.set(message, header.length);
  return bytes;
}

function chunkLength(chunk: Chunk): number {
  return chunk instanceof Uint8Array ? chunk.length : chunk.end - chunk.start;
}

/** Neighbouring ranges become one copy (most nodes and all weights are contiguous). */
function mergeRanges(chunks: Chunk[]): Chunk[] {
  const merged: Chunk[] = [];
  for (const chunk of chunks) {
    const last = merged.at(-1);
    if (!(chunk instanceof Uint8Array) && last !== undefined && !(last instanceof Uint8Array)) {
      if (last.end === chunk.start) {
        last.end = chunk.end;
        continue;
      }
    }
    merged.push(chunk instanceof Uint8Array ? chunk : { ...chunk });
  }
  return merged;
}

async function writeChunks(reader: ProtoReader, chunks: Chunk[], target: string): Promise<number> {
  const out = await open(target, "w");
  let written = 0;
  try {
    const piece = Buffer.allocUnsafe(COPY_PIECE);
    for (const chunk of chunks) {
      if (chunk instanceof Uint8Array) {
        await writeAll(out, chunk);
        written += chunk.length;
        continue;
      }
      for (let at = chunk.start; at < chunk.end; ) {
        const size = Math.min(COPY_PIECE, chunk.end - at);
        const { bytesRead } = await reader.handle.read(piece, 0, size, at);
        if (bytesRead === 0) throw new Error(`${reader.file}: unexpected end of file at ${at}`);
        await writeAll(out, piece.subarray(0, bytesRead));
        at += bytesRead;
        written += bytesRead;
      }
    }
  } finally {
    await out.close();
  }
  return written;
}

async function writeAll(out: FileHandle, bytes: Uint8Array): Promise<void> {
  for (let at = 0; at < bytes.length; ) {
    const { bytesWritten } = await out.write(bytes, at, bytes.length - at);
    at += bytesWritten;
  }
}
