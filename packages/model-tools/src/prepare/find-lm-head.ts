import { ModelFolderError } from "@assay/verifier";
import type { GraphIndex } from "./graph-index.js";
import type { NodeProto, OnnxModelFile } from "./onnx-file.js";

/** The LM head and the position-wise ops between it and the logits output. */
export interface LmHead {
  /** The MatMul whose first input is the final hidden state. */
  node: NodeProto;
  /** The final hidden state, [batch, sequence, hidden]: the MatMul's first input. */
  hidden: string;
  /** Nodes after the MatMul up to the one producing `logits`, in order. */
  chain: NodeProto[];
  /** Tensors whose shape becomes [batch, 1, …] once the position is gathered. */
  reshaped: string[];
  /** A Cast sits between the MatMul and the logits (the hidden state's type is then unknown). */
  casts: boolean;
  /** Rows of the LM head weight (= hidden size) when it is an initializer. */
  hiddenSize: number | null;
}

/** Ops that act on each position alone (element-wise with a constant), allowed after the head. */
const POSITION_WISE = new Set([
  "Add",
  "Sub",
  "Mul",
  "Div",
  "Tanh",
  "Cast",
  "Identity",
  "Clip",
  "Neg",
]);

/** The LM head: ONNX MatMul, or onnxruntime's quantized MatMulNBits. */
function isHead(node: NodeProto): boolean {
  const domain = node.domain ?? "";
  return (
    (node.opType === "MatMul" && (domain === "" || domain === "ai.onnx")) ||
    (node.opType === "MatMulNBits" && domain === "com.microsoft")
  );
}

/**
 * Walks back from the logits output through position-wise ops to the last MatMul. Refuses,
 * naming the node, any graph where that walk meets something else: gathering the score
 * position before such a node could change what it computes.
 */
export function findLmHead(model: OnnxModelFile, graph: GraphIndex, logits: string): LmHead {
  const refuse = (message: string): never => {
    throw new ModelFolderError(
      model.file,
      `cannot find the LM head of output \`${logits}\`: ${message}. prepare expects the logits to come from a MatMul on the final hidden state ([batch, sequence, hidden] × [hidden, vocab]), followed only by element-wise ops with constants (${[...POSITION_WISE].join(", ")})`,
    );
  };
  const chain: NodeProto[] = [];
  let tensor = logits;
  for (;;) {
    const node = graph.producers.get(tensor);
    if (node === undefined) return refuse(`\`${tensor}\` is not computed by any node`);
    const readers = graph.consumers.get(tensor) ?? [];
    const nextInChain = chain[0];
    const otherReaders = readers.filter((r) => r !== nextInChain);
    if (otherReaders.length > 0) {
      return refuse(
        `\`${tensor}\` is also read by ${describe(otherReaders[0] as NodeProto)}, which would see one position instead of all`,
      );
    }
    const dynamic = node.input.filter((name) => name !== "" && !graph.constants.has(name));
    if (isHead(node)) {
      const [hidden, ...rest] = node.input;
      if (hidden === undefined || dynamic.length !== 1 || dynamic[0] !== hidden) {
        return refuse(
          `${describe(node)} multiplies two inputs that both depend on the graph inputs (${dynamic.join(", ")}); the LM head's weight must be a constant`,
        );
      }
      const weight = rest[0] === undefined ? undefined : model.initializers.get(rest[0]);
      const hiddenSize =
        node.opType === "MatMul" && weight?.dims.length === 2 ? (weight.dims[0] ?? null) : null;
      const reshaped = [node.output[0] ?? "", ...chain.map((n) => n.output[0] ?? "")];
      return {
        node,
        hidden,
        chain,
        reshaped,
        casts: chain.some((n) => n.opType === "Cast"),
        hiddenSize,
      };
    }
    if (!POSITION_WISE.has(node.opType ?? "") || (node.domain ?? "") !== "") {
      return refuse(`walking back from it reached ${describe(node)}`);
    }
    if (dynamic.length !== 1) {
      return refuse(
        `${describe(node)} combines ${dynamic.length} inputs that depend on the graph inputs (${dynamic.join(", ")})`,
      );
    }
    checkConstantOperands(model, node, dynamic[0] as string, refuse);
    chain.unshift(node);
    tensor = dynamic[0] as string;
  }
}

/** A constant operand with a dimension other than the last (e.g. [sequence, vocab]) is refused. */
function checkConstantOperands(
  model: OnnxModelFile,
  node: NodeProto,
  dynamic: string,
  refuse: (message: string) => never,
): void {
  for (const name of node.input) {
    if (name === "" || name === dynamic) continue;
    const dims = model.initializers.get(name)?.dims ?? [];
    if (dims.slice(0, -1).some((d) => d !== 1)) {
      refuse(
        `${describe(node)} applies the constant \`${name}\` of shape [${dims.join(", ")}], which varies along more than the last axis`,
      );
    }
  }
}

function describe(node: NodeProto): string {
  const name =
    node.name === undefined || node.name === null || node.name === "" ? "" : ` \`${node.name}\``;
  return `a ${node.opType} node${name}`;
}
