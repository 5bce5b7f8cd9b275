import onnxProto from "onnx-proto";

const { onnx } = onnxProto;

type Attribute = number | number[] | string | Float32Array;

/** A tiny helper to write an ONNX graph node by node; names are generated. */
export class GraphBuilder {
  readonly #nodes: InstanceType<typeof onnx.NodeProto>[] = [];
  readonly #initializers: InstanceType<typeof onnx.TensorProto>[] = [];
  /** Operator domains besides the default one, imported at version 1 (com.microsoft's contrib ops). */
  readonly #domains = new Set<string>();
  #counter = 0;

  fresh(prefix: string): string {
    this.#counter += 1;
    return `${prefix}_${this.#counter}`;
  }

  /** Adds a node with one output and returns the output's name. */
  op(
    opType: string,
    inputs: string[],
    attributes: Record<string, Attribute> = {},
    output?: string,
  ) {
    const name = output ?? this.fresh(opType.toLowerCase());
    this.#push("", opType, inputs, [name], attributes);
    return name;
  }

  /**
   * Adds a node of another domain (e.g. `com.microsoft`) with several outputs and returns
   * their names (null: a generated one); an empty input name leaves that optional input out.
   */
  contribOp(
    domain: string,
    opType: string,
    inputs: string[],
    outputNames: (string | null)[],
    attributes: Record<string, Attribute> = {},
  ): string[] {
    this.#domains.add(domain);
    const outputs = outputNames.map((name) => name ?? this.fresh(opType.toLowerCase()));
    this.#push(domain, opType, inputs, outputs, attributes);
    return outputs;
  }

  #push(
    domain: string,
    opType: string,
    input: string[],
    output: string[],
    attributes: Record<string, Attribute>,
  ): void {
    this.#nodes.push(
      onnx.NodeProto.create({
        opType,
        domain,
        input,
        output,
        name: this.fresh(`node_${opType}`),
        attribute: Object.entries(attributes).map(([key, value]) => attributeOf(key, value)),
      }),
    );
  }

  floats(name: string, dims: number[], values: Float32Array): string {
    this.#initializers.push(
      onnx.TensorProto.create({
        name,
        dims,
        dataType: onnx.TensorProto.DataType.FLOAT,
        rawData: new Uint8Array(values.buffer, values.byteOffset, values.byteLength),
      }),
    );
    return name;
  }

  ints(name: string, dims: number[], values: number[]): string {
    const data = BigInt64Array.from(values.map((v) => BigInt(v)));
    this.#initializers.push(
      onnx.TensorProto.create({
        name,
        dims,
        dataType: onnx.TensorProto.DataType.INT64,
        rawData: new Uint8Array(data.buffer),
      }),
    );
    return name;
  }

  scalar(value: number): string {
    return this.floats(this.fresh("const"), [], Float32Array.of(value));
  }

  encode(io: { inputs: TensorSpec[]; outputs: TensorSpec[]; name: string }): Uint8Array {
    return this.#encodeModel(io, this.#initializers);
  }

  /**
   * The model with every initializer of at least `threshold` bytes moved to one external
   * data file, the way optimum saves models over 2 GB: `location` relative to the .onnx,
   * byte offset and length per tensor. Returns the .onnx bytes and the data file's bytes.
   */
  encodeWithExternalData(
    io: { inputs: TensorSpec[]; outputs: TensorSpec[]; name: string },
    location: string,
    threshold = 1024,
  ): { model: Uint8Array; data: Uint8Array } {
    const chunks: Uint8Array[] = [];
    let offset = 0;
    const initializers = this.#initializers.map((tensor) => {
      const raw = tensor.rawData;
      if (raw.byteLength < threshold) return tensor;
      chunks.push(raw);
      const entry = onnx.TensorProto.create({
        name: tensor.name,
        dims: tensor.dims,
        dataType: tensor.dataType,
        dataLocation: onnx.TensorProto.DataLocation.EXTERNAL,
        externalData: [
          { key: "location", value: location },
          { key: "offset", value: String(offset) },
          { key: "length", value: String(raw.byteLength) },
        ],
      });
      offset += raw.byteLength;
      return entry;
    });
    const data = new Uint8Array(offset);
    let at = 0;
    for (const chunk of chunks) {
      data.set(chunk, at);
      at += chunk.byteLength;
    }
    return { model: this.#encodeModel(io, initializers), data };
  }

  #encodeModel(
    io: { inputs: TensorSpec[]; outputs: TensorSpec[]; name: string },
    initializers: InstanceType<typeof onnx.TensorProto>[],
  ): Uint8Array {
    const graph = onnx.GraphProto.create({
      name: io.name,
      node: this.#nodes,
      initializer: initializers,
      input: io.inputs.map(valueInfo),
      output: io.outputs.map(valueInfo),
    });
    const model = onnx.ModelProto.create({
      irVersion: 8,
      producerName: "assay-tiny",
      opsetImport: [
        { domain: "", version: 17 },
        ...[...this.#domains].map((domain) => ({ domain, version: 1 })),
      ],
      graph,
    });
    return onnx.ModelProto.encode(model).finish();
  }
}

export interface TensorSpec {
  name: string;
  type: "float" | "int64";
  dims: (number | string)[];
}

function valueInfo(spec: TensorSpec) {
  return onnx.ValueInfoProto.create({
    name: spec.name,
    type: {
      tensorType: {
        elemType:
          spec.type === "float" ? onnx.TensorProto.DataType.FLOAT : onnx.TensorProto.DataType.INT64,
        shape: {
          dim: spec.dims.map((d) => (typeof d === "number" ? { dimValue: d } : { dimParam: d })),
        },
      },
    },
  });
}

function attributeOf(name: string, value: Attribute) {
  const { AttributeType } = onnx.AttributeProto;
  if (typeof value === "string") {
    return { name, type: AttributeType.STRING, s: new TextEncoder().encode(value) };
  }
  if (value instanceof Float32Array) {
    const t = onnx.TensorProto.create({
      dims: [value.length],
      dataType: onnx.TensorProto.DataType.FLOAT,
      rawData: new Uint8Array(value.buffer, value.byteOffset, value.byteLength),
    });
    return { name, type: AttributeType.TENSOR, t };
  }
  if (Array.isArray(value)) return { name, type: AttributeType.INTS, ints: value };
  return Number.isInteger(value)
    ? { name, type: AttributeType.INT, i: value }
    : { name, type: AttributeType.FLOAT, f: value };
}
