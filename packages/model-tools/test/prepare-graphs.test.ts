import { cpSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { preparedPair } from "@assay/test-support/prepared-models";
import { tempRoot, tinyModel } from "@assay/test-support/tiny-models";
import { loadModel, ModelFolderError, PREPARED } from "@assay/verifier";
import onnxProto from "onnx-proto";
import * as ort from "onnxruntime-node";
import { describe, expect, it } from "vitest";
import { prepareModel } from "../src/index.js";
import { GraphBuilder, type TensorSpec } from "../src/tiny/onnx-builder.js";

const { onnx } = onnxProto;
const H = 4;
const V = 64;

let counter = 0;
/** A tiny distribution-head folder whose graph is replaced by `graph`. */
async function folderWith(graph: Uint8Array): Promise<string> {
  counter += 1;
  const dir = join(tempRoot, `custom-graph-${counter}`);
  cpSync(await tinyModel({ head: "distribution" }), dir, { recursive: true });
  writeFileSync(join(dir, "onnx", "model.onnx"), graph);
  return dir;
}

const ids: TensorSpec[] = ["input_ids", "attention_mask"].map((name) => ({
  name,
  type: "int64",
  dims: ["batch", "sequence"],
}));
const logitsSpec: TensorSpec = { name: "logits", type: "float", dims: ["batch", "sequence", V] };

/** hidden = a lookup of input_ids mod V: [batch, sequence, H]. */
function embedding(g: GraphBuilder): string {
  const table = g.floats(
    "embed",
    [V, H],
    Float32Array.from({ length: V * H }, (_, i) => i / 97),
  );
  return g.op("Gather", [table, g.op("Mod", ["input_ids", g.ints("v", [], [V])])], { axis: 0 });
}

function lmWeight(g: GraphBuilder): string {
  return g.floats(
    "lm_head",
    [H, V],
    Float32Array.from({ length: H * V }, (_, i) => Math.sin(i)),
  );
}

async function refusal(dir: string, options = {}): Promise<ModelFolderError> {
  const error = await prepareModel(dir, join(dir, "..", `${counter}-out`), options).then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ModelFolderError);
  return error as ModelFolderError;
}

describe("prepare refuses", () => {
  it("a graph whose logits do not come from an LM head MatMul, naming the node", async () => {
    const g = new GraphBuilder();
    const lookup = g.floats("table", [V, V], new Float32Array(V * V));
    g.op("Gather", [lookup, g.op("Mod", ["input_ids", g.ints("v", [], [V])])], {}, "logits");
    const dir = await folderWith(g.encode({ name: "lookup", inputs: ids, outputs: [logitsSpec] }));
    const error = await refusal(dir);
    expect(error.file).toBe(join(dir, "onnx", "model.onnx"));
    expect(error.message).toMatch(/cannot find the LM head of output `logits`/);
    expect(error.message).toMatch(/reached a Gather node/);
  });

  it("an LM head followed by an op that is not position-wise", async () => {
    const g = new GraphBuilder();
    const projected = g.op("MatMul", [embedding(g), lmWeight(g)]);
    g.op("Reshape", [projected, g.ints("shape", [3], [0, 0, -1])], {}, "logits");
    const dir = await folderWith(g.encode({ name: "reshape", inputs: ids, outputs: [logitsSpec] }));
    expect((await refusal(dir)).message).toMatch(/reached a Reshape node/);
  });

  it("a graph older than opset 13", async () => {
    const g = new GraphBuilder();
    g.op("MatMul", [embedding(g), lmWeight(g)], {}, "logits");
    const model = onnx.ModelProto.decode(
      g.encode({ name: "old", inputs: ids, outputs: [logitsSpec] }),
    );
    model.opsetImport = [{ domain: "", version: 11 }];
    const dir = await folderWith(onnx.ModelProto.encode(model).finish());
    expect((await refusal(dir)).message).toMatch(/opset 11; prepare needs opset 13/);
  });

  it("a folder that is already prepared, and writing over the model itself", async () => {
    const { original, prepared } = await preparedPair({ head: "distribution" });
    const again = await refusal(prepared);
    expect(again.field).toBe("graph");
    expect(again.message).toMatch(/already prepared/);
    const same = await prepareModel(original, original).catch((e: unknown) => e);
    expect(same).toBeInstanceOf(ModelFolderError);
    expect((same as Error).message).toMatch(/output folder is the model folder itself/);
  });
});

describe("a graph with past key values", () => {
  it("keeps the past inputs and present outputs unchanged", async () => {
    const g = new GraphBuilder();
    const hidden = embedding(g);
    g.op("MatMul", [hidden, lmWeight(g)], {}, "logits");
    const step = g.op("Unsqueeze", [hidden, g.ints("axes", [1], [1])]);
    g.op("Concat", ["past_key_values.0.key", step], { axis: 2 }, "present.0.key");
    const past: TensorSpec = {
      name: "past_key_values.0.key",
      type: "float",
      dims: ["batch", 1, "past", H],
    };
    const present: TensorSpec = {
      name: "present.0.key",
      type: "float",
      dims: ["batch", 1, "total", H],
    };
    const dir = await folderWith(
      g.encode({ name: "with-past", inputs: [...ids, past], outputs: [logitsSpec, present] }),
    );
    const out = join(dir, "..", `${counter}-prepared`);
    await prepareModel(dir, out);

    const before = await ort.InferenceSession.create(readFileSync(join(dir, "onnx", "model.onnx")));
    const after = await ort.InferenceSession.create(readFileSync(join(out, "onnx", "model.onnx")));
    expect(after.inputNames).toEqual([...before.inputNames, PREPARED.position, PREPARED.tokenIds]);
    expect(after.outputNames).toEqual(["present.0.key", PREPARED.logprobs]);

    const rows = [
      [3, 9, 27, 81],
      [5, 25, 1, 0],
    ];
    const positions = [3, 2];
    const tokens = [7, 11, 13];
    const feeds = {
      input_ids: int64(rows.flat(), [2, 4]),
      attention_mask: int64([1, 1, 1, 1, 1, 1, 1, 0], [2, 4]),
      "past_key_values.0.key": new ort.Tensor(
        "float32",
        Float32Array.from({ length: 2 * 3 * H }, (_, i) => i),
        [2, 1, 3, H],
      ),
    };
    const a = await before.run(feeds);
    const b = await after.run({
      ...feeds,
      [PREPARED.position]: int64(positions, [2]),
      [PREPARED.tokenIds]: int64(tokens, [3]),
    });
    expect(b["present.0.key"]?.dims).toEqual([2, 1, 7, H]);
    expect(b["present.0.key"]?.data).toEqual(a["present.0.key"]?.data);
    expect(b[PREPARED.logprobs]?.dims).toEqual([2, 3]);
    const logits = a.logits?.data as Float32Array;
    const scores = b[PREPARED.logprobs]?.data as Float32Array;
    positions.forEach((position, row) => {
      const at = logits.subarray((row * 4 + position) * V, (row * 4 + position + 1) * V);
      const max = Math.max(...at);
      const logSum = max + Math.log(at.reduce((s, l) => s + Math.exp(l - max), 0));
      tokens.forEach((token, g) => {
        const got = scores[row * 3 + g] ?? Number.NaN;
        expect(Math.abs(got - ((at[token] ?? 0) - logSum))).toBeLessThan(1e-5);
      });
    });
    await Promise.all([before.release(), after.release()]);
  });
});

describe("loading a prepared folder", () => {
  async function loadError(dir: string): Promise<ModelFolderError> {
    const error = await loadModel(dir, { threads: 1 }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ModelFolderError);
    return error as ModelFolderError;
  }

  function editAssay(dir: string, change: (json: Record<string, unknown>) => void): string {
    counter += 1;
    const copy = join(tempRoot, `prepared-edit-${counter}`);
    cpSync(dir, copy, { recursive: true });
    const path = join(copy, "assay.json");
    const json = JSON.parse(readFileSync(path, "utf8")) as Record<string, unknown>;
    change(json);
    writeFileSync(path, JSON.stringify(json));
    return copy;
  }

  it("refuses a prepared graph whose assay.json does not say so", async () => {
    const { prepared } = await preparedPair({ head: "distribution" });
    const dir = editAssay(prepared, (json) => delete json.graph);
    const error = await loadError(dir);
    expect(error.field).toBe("graph");
    expect(error.message).toMatch(/takes `score_position`/);
  });

  it("refuses an assay.json that says prepared over an exported graph", async () => {
    const original = await tinyModel({ head: "distribution" });
    const error = await loadError(editAssay(original, (json) => (json.graph = "prepared")));
    expect(error.field).toBe("graph");
    expect(error.message).toMatch(/has no `score_position` input/);
  });

  it("refuses a head the graph was not prepared for, saying how to fix it", async () => {
    const { prepared } = await preparedPair({ head: "probe" });
    const dir = editAssay(prepared, (json) => {
      json.head = { type: "distribution", scale: ["A", "B"], output: PREPARED.logprobs };
    });
    const error = await loadError(dir);
    expect(error.message).toMatch(/no `score_logprobs` output .*--heads distribution/);
  });
});

function int64(values: number[], dims: number[]): ort.Tensor {
  return new ort.Tensor(
    "int64",
    BigInt64Array.from(values, (v) => BigInt(v)),
    dims,
  );
}
