import { ModelFolderError } from "@assay/verifier";
import { type ProtoField, type ProtoReader, WireType } from "@assay/verifier/tooling";
import onnxProto from "onnx-proto";

const { onnx } = onnxProto;

export type NodeProto = InstanceType<typeof onnx.NodeProto>;
export type ValueInfoProto = InstanceType<typeof onnx.ValueInfoProto>;

/** ModelProto, GraphProto and TensorProto field numbers (onnx.proto). */
export const ModelField = { graph: 7, opsetImport: 8 } as const;
export const GraphField = {
  node: 1,
  initializer: 5,
  input: 11,
  output: 12,
  valueInfo: 13,
  sparseInitializer: 15,
} as const;
const TensorField = { dims: 1, dataType: 2, name: 8, externalData: 13, dataLocation: 14 } as const;
const SparseTensorField = { values: 1 } as const;
const EXTERNAL = 1;

/** What prepare needs to know of an initializer; its data is never read. */
export interface InitializerInfo {
  name: string;
  dims: number[];
  dataType: number;
  /** `location` of each external data entry (relative to the .onnx file). */
  externalLocations: string[];
}

export type GraphEntry =
  | { kind: "node"; field: ProtoField; node: NodeProto }
  | { kind: "input" | "output" | "valueInfo"; field: ProtoField; info: ValueInfoProto }
  | { kind: "initializer"; field: ProtoField; tensor: InitializerInfo }
  | { kind: "other"; field: ProtoField };

/** An ONNX model read by structure: the graph's small parts decoded, the weights only located. */
export interface OnnxModelFile {
  file: string;
  /** Top-level ModelProto fields, in file order. */
  modelFields: ProtoField[];
  graphField: ProtoField;
  /** Opset version per domain ("" is the default ONNX domain). */
  opsets: Map<string, number>;
  /** Every GraphProto field, in file order. */
  entries: GraphEntry[];
  nodes: NodeProto[];
  inputs: ValueInfoProto[];
  outputs: ValueInfoProto[];
  valueInfos: ValueInfoProto[];
  initializers: Map<string, InitializerInfo>;
  /** External data files the initializers point to, each once. */
  externalFiles: string[];
}

export async function readOnnxModel(reader: ProtoReader): Promise<OnnxModelFile> {
  const modelFields = await reader.fields(0, reader.size);
  const graphs = modelFields.filter((f) => f.number === ModelField.graph);
  const graphField = graphs[0];
  if (graphField === undefined || graphField.wireType !== WireType.bytes) {
    throw new ModelFolderError(reader.file, "not an ONNX model: it has no graph");
  }
  if (graphs.length > 1) {
    throw new ModelFolderError(
      reader.file,
      "the graph is stored in several pieces; load and save the model once with onnx (onnx.save) and prepare again",
    );
  }
  const opsets = new Map<string, number>();
  for (const field of modelFields.filter((f) => f.number === ModelField.opsetImport)) {
    const opset = onnx.OperatorSetIdProto.decode(await reader.bytes(field.valueStart, field.end));
    opsets.set(opset.domain ?? "", toNumber(opset.version));
  }
  const model: OnnxModelFile = {
    file: reader.file,
    modelFields,
    graphField,
    opsets,
    entries: [],
    nodes: [],
    inputs: [],
    outputs: [],
    valueInfos: [],
    initializers: new Map(),
    externalFiles: [],
  };
  for (const field of await reader.fields(graphField.valueStart, graphField.end)) {
    model.entries.push(await readEntry(reader, field, model));
  }
  const locations = [...model.initializers.values()].flatMap((t) => t.externalLocations);
  model.externalFiles = [...new Set([...locations, ...constantLocations(model.nodes)])];
  return model;
}

async function readEntry(
  reader: ProtoReader,
  field: ProtoField,
  model: OnnxModelFile,
): Promise<GraphEntry> {
  if (field.wireType !== WireType.bytes) return { kind: "other", field };
  const bytes = () => reader.bytes(field.valueStart, field.end);
  switch (field.number) {
    case GraphField.node: {
      const node = onnx.NodeProto.decode(await bytes());
      model.nodes.push(node);
      return { kind: "node", field, node };
    }
    case GraphField.input:
    case GraphField.output:
    case GraphField.valueInfo: {
      const info = onnx.ValueInfoProto.decode(await bytes());
      if (field.number === GraphField.input) {
        model.inputs.push(info);
        return { kind: "input", field, info };
      }
      if (field.number === GraphField.output) {
        model.outputs.push(info);
        return { kind: "output", field, info };
      }
      model.valueInfos.push(info);
      return { kind: "valueInfo", field, info };
    }
    case GraphField.initializer: {
      const tensor = await readTensorInfo(reader, field.valueStart, field.end);
      model.initializers.set(tensor.name, tensor);
      return { kind: "initializer", field, tensor };
    }
    case GraphField.sparseInitializer: {
      // Only its name (the values tensor's) and external files matter here.
      const values = (await reader.fields(field.valueStart, field.end)).find(
        (f) => f.number === SparseTensorField.values,
      );
      if (values !== undefined) {
        const tensor = await readTensorInfo(reader, values.valueStart, values.end);
        model.initializers.set(tensor.name, tensor);
      }
      return { kind: "other", field };
    }
    default:
      return { kind: "other", field };
  }
}

/** A TensorProto's name, dims, type and external data, skipping its data fields. */
async function readTensorInfo(
  reader: ProtoReader,
  start: number,
  end: number,
): Promise<InitializerInfo> {
  const info: InitializerInfo = { name: "", dims: [], dataType: 0, externalLocations: [] };
  let external = false;
  const entries: { key: string; value: string }[] = [];
  for (const field of await reader.fields(start, end)) {
    if (field.number === TensorField.dims) {
      if (field.wireType === WireType.varint) info.dims.push(field.varint);
      else info.dims.push(...packedVarints(await reader.bytes(field.valueStart, field.end)));
    } else if (field.number === TensorField.dataType) {
      info.dataType = field.varint;
    } else if (field.number === TensorField.name) {
      info.name = (await reader.bytes(field.valueStart, field.end)).toString("utf8");
    } else if (field.number === TensorField.dataLocation) {
      external = field.varint === EXTERNAL;
    } else if (field.number === TensorField.externalData) {
      const entry = onnx.StringStringEntryProto.decode(
        await reader.bytes(field.valueStart, field.end),
      );
      entries.push({ key: entry.key ?? "", value: entry.value ?? "" });
    }
  }
  if (external) {
    info.externalLocations = entries.filter((e) => e.key === "location").map((e) => e.value);
  }
  return info;
}

function packedVarints(bytes: Uint8Array): number[] {
  const values: number[] = [];
  let value = 0;
  let scale = 1;
  for (const byte of bytes) {
    value += (byte & 0x7f) * scale;
    scale *= 128;
    if (byte < 0x80) {
      values.push(value);
      value = 0;
      scale = 1;
    }
  }
  return values;
}

/** External data files of tensors stored in node attributes (Constant nodes). */
function constantLocations(nodes: readonly NodeProto[]): string[] {
  return nodes.flatMap((node) =>
    node.attribute.flatMap((attribute) =>
      attribute.t?.dataLocation === EXTERNAL
        ? (attribute.t.externalData ?? [])
            .filter((e) => e.key === "location")
            .map((e) => e.value ?? "")
        : [],
    ),
  );
}

/** protobufjs gives int64 fields as numbers or Long objects. */
export function toNumber(value: number | { toNumber(): number } | null | undefined): number {
  if (value === null || value === undefined) return 0;
  return typeof value === "number" ? value : value.toNumber();
}
