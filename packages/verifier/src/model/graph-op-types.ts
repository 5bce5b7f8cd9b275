import { ProtoReader, WireType } from "../graph/proto-reader.js";

/** ModelProto.graph, GraphProto.node and NodeProto.op_type field numbers (onnx.proto). */
const MODEL_GRAPH = 7;
const GRAPH_NODE = 1;
const NODE_OP_TYPE = 4;

/**
 * The op types of the main graph's nodes, read by offset without onnx-proto: tag walks and
 * a few bytes per node, weights skipped by their length.
 */
export async function readOpTypes(file: string): Promise<Set<string>> {
  const reader = await ProtoReader.open(file);
  try {
    const types = new Set<string>();
    const bytesFields = async (start: number, end: number, number: number) =>
      (await reader.fields(start, end)).filter(
        (f) => f.number === number && f.wireType === WireType.bytes,
      );
    for (const graph of await bytesFields(0, reader.size, MODEL_GRAPH)) {
      for (const node of await bytesFields(graph.valueStart, graph.end, GRAPH_NODE)) {
        for (const op of await bytesFields(node.valueStart, node.end, NODE_OP_TYPE)) {
          types.add((await reader.bytes(op.valueStart, op.end)).toString("utf8"));
        }
      }
    }
    return types;
  } finally {
    await reader.close();
  }
}
