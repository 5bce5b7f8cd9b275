import { ModelFolderError, PREPARED, type PreparedHead } from "@assay/verifier";
import onnxProto from "onnx-proto";
import { findLmHead, type LmHead } from "./find-lm-head.js";
import { declaredShape, type GraphIndex, indexGraph } from "./graph-index.js";
import type { NodeProto, OnnxModelFile, ValueInfoProto } from "./onnx-file.js";

const { onnx } = onnxProto;
type TensorProto = InstanceType<typeof onnx.TensorProto>;

const FLOAT = onnx.TensorProto.DataType.FLOAT;
const INT64 = onnx.TensorProto.DataType.INT64;
/** Squeeze/Unsqueeze with axes as an input, and GatherND with batch_dims. */
const MIN_OPSET = 13;
const PREFIX = "assay_prepare/";

export interface RewriteOptions {
  heads: readonly PreparedHead[];
  /** The logits output of the original graph. Default `logits`. */
  logits: string;
  /** The hidden-state output of the original graph, if it has one. Default `last_hidden_state`. */
  hidden: string;
}

/** The edit, as new and changed parts; the writer copies everything else byte for byte. */
export interface RewritePlan {
  /** Original node → the node written in its place. */
  replaced: Map<NodeProto, NodeProto>;
  /** Nodes written before the first original node. */
  first: NodeProto[];
  /** Nodes written right after an original node (keeps the file topologically sorted). */
  after: Map<NodeProto, NodeProto[]>;
  /** Original nodes no output depends on any more (e.g. the logits path of a probe-only graph). */
  removed: Set<NodeProto>;
  /** Initializers only removed nodes read (not written: nothing would use them). */
  removedInitializers: Set<string>;
  removedOutputs: Set<string>;
  /** value_info entries dropped: their tensors now hold one position, not all. */
  droppedValueInfo: Set<string>;
  inputs: ValueInfoProto[];
  outputs: ValueInfoProto[];
  initializers: TensorProto[];
  /** The LM head node (name, or op and input), for messages. */
  lmHead: string | null;
}

/**
 * Plans the prepared graph: the score position enters as `score_position`; the final
 * hidden state is gathered at it (GatherND, batch_dims 1) before the LM head, so the head
 * and everything after it run on one position per row; a distribution head gets the
 * log-softmax at that position restricted to `score_token_ids`, a probe head the hidden
 * state itself. Weights and every other node stay as they are.
 */
export function planRewrite(model: OnnxModelFile, options: RewriteOptions): RewritePlan {
  checkPreconditions(model);
  const graph = indexGraph(model);
  const outputs = new Set(model.outputs.map((o) => o.name ?? ""));
  const wantsLogits = options.heads.includes("distribution");
  const wantsProbe = options.heads.includes("probe");
  const hasHiddenOutput = outputs.has(options.hidden);
  if (wantsLogits && !outputs.has(options.logits)) {
    throw missingOutput(model, options.logits, "a distribution head reads the logits");
  }
  if (wantsProbe && !hasHiddenOutput && !outputs.has(options.logits)) {
    throw missingOutput(
      model,
      options.hidden,
      "a probe head reads the final hidden state (or the input of the LM head, when the graph returns `logits`)",
    );
  }
  const lmHead =
    wantsLogits || (wantsProbe && !hasHiddenOutput)
      ? findLmHead(model, graph, options.logits)
      : null;
  const declaredBatch = declaredShape(graph.declared.get("input_ids"))?.dims?.[0];
  const batch = declaredBatch === undefined || declaredBatch === "?" ? "batch" : declaredBatch;
  const plan: RewritePlan = {
    replaced: new Map(),
    first: [],
    after: new Map(),
    removed: new Set(),
    removedInitializers: new Set(),
    removedOutputs: new Set([options.logits, options.hidden].filter((name) => outputs.has(name))),
    droppedValueInfo: new Set(lmHead?.reshaped ?? []),
    inputs: [tensorInfo(PREPARED.position, INT64, [batch])],
    outputs: [],
    initializers: [axesOne()],
    lmHead: lmHead === null ? null : describeNode(lmHead.node),
  };
  const index = `${PREFIX}score_index`;
  plan.first.push(node("Unsqueeze", [PREPARED.position, AXES_ONE], index));

  // One GatherND per source tensor, shared when the probe and the LM head read the same one.
  const gathered = new Map<string, string>();
  const gatherAt = (source: string, name?: string): string => {
    const existing = gathered.get(source);
    if (existing !== undefined) return existing;
    checkRank3(model, graph, source);
    const output = name ?? `${PREFIX}at_score_${gathered.size}`;
    insertAfter(plan, source, graph, [
      node("GatherND", [source, index], output, { batch_dims: 1 }),
    ]);
    gathered.set(source, output);
    return output;
  };
  if (wantsProbe) {
    const source = hasHiddenOutput ? options.hidden : (lmHead as LmHead).hidden;
    addProbe(plan, graph, source, lmHead, batch, gatherAt);
  }
  if (wantsLogits && lmHead !== null) {
    addDistribution(plan, graph, lmHead, options.logits, batch, gatherAt);
  }
  removeDeadNodes(model, plan);
  return plan;
}

/**
 * Drops original nodes whose outputs nothing reads any more, so a probe-only graph does not
 * keep computing logits at every position for nobody.
 */
function removeDeadNodes(model: OnnxModelFile, plan: RewritePlan): void {
  const kept = model.outputs
    .map((o) => o.name ?? "")
    .filter((name) => !plan.removedOutputs.has(name));
  const live = new Set([...kept, ...plan.outputs.map((o) => o.name ?? "")]);
  const nodes = finalNodes(model, plan);
  let changed = true;
  while (changed) {
    changed = false;
    for (const n of [...nodes].reverse()) {
      if (!n.output.some((o) => live.has(o))) continue;
      for (const input of readsOf(n)) {
        if (!live.has(input)) {
          live.add(input);
          changed = true;
        }
      }
    }
  }
  for (const original of model.nodes) {
    const written = plan.replaced.get(original) ?? original;
    if (written.output.some((o) => live.has(o))) continue;
    plan.removed.add(original);
    for (const output of original.output) plan.droppedValueInfo.add(output);
  }
  // An initializer also listed as a graph input stays: dropping it would make it required.
  const inputs = new Set(model.inputs.map((i) => i.name ?? ""));
  for (const name of model.initializers.keys()) {
    if (!live.has(name) && !inputs.has(name)) plan.removedInitializers.add(name);
  }
}

/** Every node in the order the writer emits them. */
export function finalNodes(model: OnnxModelFile, plan: RewritePlan): NodeProto[] {
  const nodes = [...plan.first];
  for (const original of model.nodes) {
    if (plan.removed.has(original)) continue;
    nodes.push(plan.replaced.get(original) ?? original, ...(plan.after.get(original) ?? []));
  }
  return nodes;
}

/** A node's inputs, plus the outer tensors its subgraphs (If, Loop, Scan) read. */
function readsOf(n: NodeProto): string[] {
  const reads = n.input.filter((name) => name !== "");
  for (const attribute of n.attribute) {
    for (const graph of [attribute.g, ...(attribute.graphs ?? [])]) {
      for (const inner of graph?.node ?? []) reads.push(...readsOf(inner as NodeProto));
    }
  }
  return reads;
}

/** `score_hidden` [batch, hidden]: the hidden state at the position, as float32. */
function addProbe(
  plan: RewritePlan,
  graph: GraphIndex,
  source: string,
  lmHead: LmHead | null,
  batch: number | string,
  gatherAt: (source: string, name?: string) => string,
): void {
  const float = isFloat(graph, source, lmHead);
  const at = gatherAt(source, float ? PREPARED.hidden : undefined);
  if (!float) insertAfter(plan, at, graph, [cast(at, PREPARED.hidden)]);
  const width = hiddenWidth(graph, source, lmHead);
  plan.outputs.push(tensorInfo(PREPARED.hidden, FLOAT, [batch, width]));
}

function addDistribution(
  plan: RewritePlan,
  graph: GraphIndex,
  lmHead: LmHead,
  logits: string,
  batch: number | string,
  gatherAt: (source: string) => string,
): void {
  const at = gatherAt(lmHead.hidden);
  // Keep rank 3 ([batch, 1, hidden]) so the head and the ops after it see the shapes they expect.
  const row = `${PREFIX}hidden_row`;
  insertAfter(plan, at, graph, [node("Unsqueeze", [at, AXES_ONE], row)]);
  const head = lmHead.node;
  plan.replaced.set(head, onnx.NodeProto.create({ ...head, input: [row, ...head.input.slice(1)] }));
  const logitsType = declaredShape(graph.declared.get(logits))?.elemType;
  const tail: NodeProto[] = [];
  let scores = logits;
  if (logitsType !== FLOAT) {
    tail.push(cast(logits, `${PREFIX}logits_float`));
    scores = `${PREFIX}logits_float`;
  }
  tail.push(
    node("LogSoftmax", [scores], `${PREFIX}logprobs`, { axis: -1 }),
    node("Gather", [`${PREFIX}logprobs`, PREPARED.tokenIds], `${PREFIX}score_logprobs_row`, {
      axis: 2,
    }),
    node("Squeeze", [`${PREFIX}score_logprobs_row`, AXES_ONE], PREPARED.logprobs),
  );
  insertAfter(plan, logits, graph, tail);
  plan.inputs.push(tensorInfo(PREPARED.tokenIds, INT64, ["score_tokens"]));
  plan.outputs.unshift(tensorInfo(PREPARED.logprobs, FLOAT, [batch, "score_tokens"]));
}

function checkPreconditions(model: OnnxModelFile): void {
  const opset = model.opsets.get("") ?? model.opsets.get("ai.onnx") ?? 0;
  if (opset < MIN_OPSET) {
    throw new ModelFolderError(
      model.file,
      `the graph uses ONNX opset ${opset}; prepare needs opset ${MIN_OPSET} or newer (export again with e.g. optimum-cli export onnx --opset 17)`,
    );
  }
  const names = new Set(model.inputs.map((i) => i.name ?? ""));
  if (names.has(PREPARED.position)) {
    throw new ModelFolderError(
      model.file,
      `the graph already takes \`${PREPARED.position}\`: it is prepared; prepare the original export instead`,
    );
  }
  if (!names.has("input_ids")) {
    throw new ModelFolderError(model.file, "the graph has no `input_ids` input");
  }
}

function missingOutput(model: OnnxModelFile, name: string, why: string): ModelFolderError {
  const outputs = model.outputs.map((o) => o.name).join(", ");
  return new ModelFolderError(
    model.file,
    `the graph has no \`${name}\` output (outputs: ${outputs}); ${why}`,
  );
}

function checkRank3(model: OnnxModelFile, graph: GraphIndex, tensor: string): void {
  const dims = declaredShape(graph.declared.get(tensor))?.dims;
  if (dims !== undefined && dims !== null && dims.length !== 3) {
    throw new ModelFolderError(
      model.file,
      `\`${tensor}\` has shape [${dims.join(", ")}]; prepare gathers the score position from a [batch, sequence, hidden] tensor`,
    );
  }
}

/** A hidden state is known to be float32 when declared so, or when the logits are and no Cast intervenes. */
function isFloat(graph: GraphIndex, tensor: string, lmHead: LmHead | null): boolean {
  const declared = declaredShape(graph.declared.get(tensor))?.elemType;
  if (declared !== undefined) return declared === FLOAT;
  if (lmHead === null || tensor !== lmHead.hidden || lmHead.casts) return false;
  const logits = lmHead.chain.at(-1)?.output[0] ?? lmHead.node.output[0] ?? "";
  return declaredShape(graph.declared.get(logits))?.elemType === FLOAT;
}

function hiddenWidth(graph: GraphIndex, tensor: string, lmHead: LmHead | null): number | string {
  const declared = declaredShape(graph.declared.get(tensor))?.dims?.[2];
  if (typeof declared === "number") return declared;
  if (lmHead !== null && tensor === lmHead.hidden && lmHead.hiddenSize !== null) {
    return lmHead.hiddenSize;
  }
  return declared ?? "hidden";
}

/** Writes `nodes` right after the producer of `tensor` (or with the first nodes for an input). */
function insertAfter(
  plan: RewritePlan,
  tensor: string,
  graph: GraphIndex,
  nodes: NodeProto[],
): void {
  const producer = graph.producers.get(tensor);
  if (producer !== undefined) {
    plan.after.set(producer, [...(plan.after.get(producer) ?? []), ...nodes]);
    return;
  }
  // Produced by a node this plan adds: place after it, wherever that one goes.
  for (const list of [plan.first, ...plan.after.values()]) {
    const index = list.findIndex((n) => n.output.includes(tensor));
    if (index >= 0) {
      list.splice(index + 1, 0, ...nodes);
      return;
    }
  }
  plan.first.push(...nodes);
}

const AXES_ONE = `${PREFIX}axes_1`;

function axesOne(): TensorProto {
  return onnx.TensorProto.create({
    name: AXES_ONE,
    dims: [1],
    dataType: INT64,
    rawData: new Uint8Array(BigInt64Array.of(1n).buffer),
  });
}

function node(
  opType: string,
  input: string[],
  output: string,
  attributes: Record<string, number> = {},
): NodeProto {
  return onnx.NodeProto.create({
    opType,
    input,
    output: [output],
    name: `${PREFIX}${opType}_${output.replace(PREFIX, "")}`,
    attribute: Object.entries(attributes).map(([name, i]) => ({
      name,
      type: onnx.AttributeProto.AttributeType.INT,
      i,
    })),
  });
}

function cast(input: string, output: string): NodeProto {
  return node("Cast", [input], output, { to: FLOAT });
}

function tensorInfo(name: string, elemType: number, dims: (number | string)[]): ValueInfoProto {
  return onnx.ValueInfoProto.create({
    name,
    type: {
      tensorType: {
        elemType,
        shape: {
          dim: dims.map((d) => (typeof d === "number" ? { dimValue: d } : { dimParam: d })),
        },
      },
    },
  });
}

function describeNode(n: NodeProto): string {
  return n.name !== undefined && n.name !== null && n.name !== ""
    ? `${n.opType} \`${n.name}\``
    : `${n.opType} on \`${n.input[0]}\``;
}
