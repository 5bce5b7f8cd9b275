import type { NodeProto, OnnxModelFile, ValueInfoProto } from "./onnx-file.js";

/** Who produces and who reads each tensor, and which tensors never depend on a graph input. */
export interface GraphIndex {
  producers: Map<string, NodeProto>;
  consumers: Map<string, NodeProto[]>;
  /** Initializers, Constant outputs, and outputs of nodes that read only those. */
  constants: Set<string>;
  /** Declared type of a tensor (graph inputs, outputs, value_info), when the file states it. */
  declared: Map<string, ValueInfoProto>;
}

export function indexGraph(model: OnnxModelFile): GraphIndex {
  const producers = new Map<string, NodeProto>();
  const consumers = new Map<string, NodeProto[]>();
  for (const node of model.nodes) {
    for (const output of node.output) producers.set(output, node);
    for (const input of node.input) {
      if (input === "") continue;
      const list = consumers.get(input) ?? [];
      list.push(node);
      consumers.set(input, list);
    }
  }
  const declared = new Map<string, ValueInfoProto>();
  for (const info of [...model.valueInfos, ...model.inputs, ...model.outputs]) {
    declared.set(info.name ?? "", info);
  }
  return { producers, consumers, constants: constantTensors(model), declared };
}

function constantTensors(model: OnnxModelFile): Set<string> {
  const constants = new Set(model.initializers.keys());
  // Until nothing changes: node order in a file is usually, but not always, topological.
  let changed = true;
  while (changed) {
    changed = false;
    for (const node of model.nodes) {
      const inputs = node.input.filter((name) => name !== "");
      const constant =
        node.opType === "Constant" ||
        (inputs.length > 0 && inputs.every((name) => constants.has(name)));
      if (!constant) continue;
      for (const output of node.output) {
        if (!constants.has(output)) {
          constants.add(output);
          changed = true;
        }
      }
    }
  }
  return constants;
}

/** Element type and dims of a declared tensor (dims: a number or a symbolic name each). */
export function declaredShape(
  info: ValueInfoProto | undefined,
): { elemType: number; dims: (number | string)[] | null } | null {
  const tensor = info?.type?.tensorType;
  if (tensor === undefined || tensor === null) return null;
  const dims = tensor.shape?.dim?.map((d) =>
    d.dimParam !== undefined && d.dimParam !== null && d.dimParam !== ""
      ? d.dimParam
      : d.dimValue !== undefined && d.dimValue !== null
        ? Number(d.dimValue)
        : "?",
  );
  return { elemType: tensor.elemType ?? 0, dims: dims ?? null };
}
