import { GraphBuilder, type TensorSpec } from "./onnx-builder.js";
import { normalArray, seededNormal } from "./random.js";

export interface TinyGraphSpec {
  kind: "decoder" | "encoder";
  layers: number;
  hidden: number;
  heads: number;
  /** Rows of the position table: the longest input the model accepts. */
  maxPositions: number;
  /** Logits cover token ids [0, logitsVocab): the full Qwen3 vocabulary would make the file huge. */
  logitsVocab: number;
  /** Token ids whose logit gets −1e9, so a scale made of them has zero mass. */
  maskedLogitIds: number[];
  /**
   * Shape the decoder's outputs like optimum's text-generation export: `logits` straight
   * from the LM head MatMul after the final norm, no bias, no `last_hidden_state` output.
   */
  exportLike: boolean;
  seed: number;
  /** Move weights to this external data file (as optimum does above 2 GB); null keeps them inline. */
  externalData: string | null;
  /**
   * A decoder shaped like optimum's text-generation-with-past export: it also takes
   * `past_key_values.{i}.key/value` ([batch, heads, past, head_dim]) and returns
   * `present.{i}.key/value` (past and new keys, concatenated), and `attention_mask` covers
   * past + new positions.
   */
  withPast?: boolean;
  /**
   * `unfused` (default) writes attention as MatMul → Softmax → MatMul with additive masks,
   * as optimum exports it: two [batch, heads, seq, seq] float32 tensors live at once.
   * `fused` writes one com.microsoft GroupQueryAttention per layer, as onnxruntime's
   * optimizers do: its CPU kernel never holds that matrix for the whole batch. It is causal
   * and reads the first `seqlens_k + 1` keys of each row (past, then new), so rows must be
   * right-padded and a past must have no gap: prefix reuse, which pads pasts to the widest,
   * cannot feed it. A decoder only.
   */
  attention?: "unfused" | "fused";
}

export interface TinyGraph {
  model: Uint8Array;
  /** Bytes of the external data file; null when the weights are inline. */
  data: Uint8Array | null;
}

/** Two coprime moduli whose product exceeds any Qwen3 id: distinct ids never share both rows. */
const HASH_MODULI = [509, 499] as const;

/**
 * A pre-norm transformer written directly as an ONNX graph. Token embeddings are hashed
 * (id mod 509, id mod 499) so a 151k vocabulary costs a few KB. The attention mask adds −1e9
 * to padded keys (and, for the decoder, to future keys), so padding never changes the
 * results of real positions.
 */
export function buildTinyGraph(spec: TinyGraphSpec): TinyGraph {
  const g = new GraphBuilder();
  const next = seededNormal(spec.seed);
  const H = spec.hidden;
  const headDim = H / spec.heads;
  const weight = (name: string, rows: number, cols: number) =>
    g.floats(name, [rows, cols], normalArray(next, rows * cols, 1 / Math.sqrt(rows)));

  const withPast = spec.kind === "decoder" && spec.withPast === true;
  const fused = spec.attention === "fused";
  if (fused && spec.kind !== "decoder") {
    throw new RangeError("Fused attention (GroupQueryAttention) is causal: a decoder only");
  }
  let x = embed(g, next, spec);
  const masks = fused ? [] : attentionMasks(g, spec.kind, withPast);
  const lengths = fused ? keyLengths(g) : null;
  const cache: TensorSpec[] = [];
  const ones = g.floats("ln_ones", [H], new Float32Array(H).fill(1));
  const zeros = g.floats("ln_zeros", [H], new Float32Array(H));
  const norm = (input: string) =>
    g.op("LayerNormalization", [input, ones, zeros], { axis: -1, epsilon: 1e-5 });
  // Only the unfused layers reshape heads and scale scores themselves.
  const headsShape = fused ? "" : g.ints("heads_shape", [4], [0, 0, spec.heads, headDim]);
  const mergeShape = fused ? "" : g.ints("merge_shape", [3], [0, 0, H]);
  const scale = fused ? "" : g.scalar(1 / Math.sqrt(headDim));

  for (let layer = 0; layer < spec.layers; layer++) {
    const h = norm(x);
    if (lengths !== null) {
      // The same weights, drawn in the same order as the unfused layer below.
      const project = (w: string) => g.op("MatMul", [h, w]);
      const q = project(weight(`l${layer}_q`, H, H));
      const k = project(weight(`l${layer}_k`, H, H));
      const v = project(weight(`l${layer}_v`, H, H));
      const cacheOf = (name: "key" | "value") => {
        if (!withPast) return { past: "", present: null };
        const past = `past_key_values.${layer}.${name}`;
        const present = `present.${layer}.${name}`;
        cache.push({ name: past, type: "float", dims: ["batch", spec.heads, "past", headDim] });
        cache.push({ name: present, type: "float", dims: ["batch", spec.heads, "total", headDim] });
        return { past, present };
      };
      const key = cacheOf("key");
      const value = cacheOf("value");
      const [attended = ""] = g.contribOp(
        "com.microsoft",
        "GroupQueryAttention",
        [q, k, v, key.past, value.past, lengths.seqlensK, lengths.total],
        [null, key.present, value.present],
        { num_heads: spec.heads, kv_num_heads: spec.heads },
      );
      x = g.op("Add", [x, g.op("MatMul", [attended, weight(`l${layer}_o`, H, H)])]);
      x = feedForward(g, x, norm, weight, layer, H);
      continue;
    }
    const split = (w: string, perm: number[]) =>
      g.op("Transpose", [g.op("Reshape", [g.op("MatMul", [h, w]), headsShape])], { perm });
    const q = split(weight(`l${layer}_q`, H, H), [0, 2, 1, 3]);
    const kW = weight(`l${layer}_k`, H, H);
    let v = split(weight(`l${layer}_v`, H, H), [0, 2, 1, 3]);
    let kT: string;
    if (withPast) {
      const kv = (name: "key" | "value", fresh: string) => {
        const past = `past_key_values.${layer}.${name}`;
        cache.push({ name: past, type: "float", dims: ["batch", spec.heads, "past", headDim] });
        const present = `present.${layer}.${name}`;
        cache.push({ name: present, type: "float", dims: ["batch", spec.heads, "total", headDim] });
        return g.op("Concat", [past, fresh], { axis: 2 }, present);
      };
      const k = kv("key", split(kW, [0, 2, 1, 3]));
      v = kv("value", v);
      kT = g.op("Transpose", [k], { perm: [0, 1, 3, 2] });
    } else {
      kT = split(kW, [0, 2, 3, 1]);
    }
    const scores = masks.reduce(
      (sum, mask) => g.op("Add", [sum, mask]),
      g.op("Mul", [g.op("MatMul", [q, kT]), scale]),
    );
    const attended = g.op("MatMul", [g.op("Softmax", [scores], { axis: -1 }), v]);
    const merged = g.op("Reshape", [
      g.op("Transpose", [attended], { perm: [0, 2, 1, 3] }),
      mergeShape,
    ]);
    x = g.op("Add", [x, g.op("MatMul", [merged, weight(`l${layer}_o`, H, H)])]);
    x = feedForward(g, x, norm, weight, layer, H);
  }
  const finalNorm = (name: string) =>
    g.op("LayerNormalization", [x, ones, zeros], { axis: -1, epsilon: 1e-5 }, name);
  const outputs: TensorSpec[] = [];
  if (spec.kind === "decoder" && spec.exportLike) {
    const last = finalNorm("final_norm");
    g.op("MatMul", [last, weight("lm_head", H, spec.logitsVocab)], {}, "logits");
    outputs.push({ name: "logits", type: "float", dims: ["batch", "sequence", spec.logitsVocab] });
  } else {
    const last = finalNorm("last_hidden_state");
    if (spec.kind === "decoder") {
      const bias = new Float32Array(spec.logitsVocab);
      for (const id of spec.maskedLogitIds) bias[id] = -1e9;
      const projected = g.op("MatMul", [last, weight("lm_head", H, spec.logitsVocab)]);
      g.op("Add", [projected, g.floats("lm_bias", [spec.logitsVocab], bias)], {}, "logits");
      outputs.push({
        name: "logits",
        type: "float",
        dims: ["batch", "sequence", spec.logitsVocab],
      });
    }
    outputs.push({ name: "last_hidden_state", type: "float", dims: ["batch", "sequence", H] });
  }
  const ids = ["input_ids", "attention_mask", "position_ids"].map((name) => ({
    name,
    type: "int64" as const,
    dims: ["batch", name === "attention_mask" && withPast ? "total" : "sequence"],
  }));
  // optimum's order: ids, mask, positions, then the past inputs; logits, then the presents.
  const inputs = [...ids, ...cache.filter((c) => c.name.startsWith("past_"))];
  outputs.push(...cache.filter((c) => c.name.startsWith("present.")));
  const io = { name: `assay-tiny-${spec.kind}`, inputs, outputs };
  if (spec.externalData === null) return { model: g.encode(io), data: null };
  return g.encodeWithExternalData(io, spec.externalData);
}

function feedForward(
  g: GraphBuilder,
  x: string,
  norm: (input: string) => string,
  weight: (name: string, rows: number, cols: number) => string,
  layer: number,
  H: number,
): string {
  const up = g.op("MatMul", [norm(x), weight(`l${layer}_up`, H, 2 * H)]);
  const silu = g.op("Mul", [up, g.op("Sigmoid", [up])]);
  return g.op("Add", [x, g.op("MatMul", [silu, weight(`l${layer}_down`, 2 * H, H)])]);
}

/**
 * GroupQueryAttention's key lengths, from `attention_mask` as onnxruntime's optimizers
 * derive them: `seqlens_k` = real tokens − 1 per row (int32 [batch]) and
 * `total_sequence_length` = the mask's width (int32 scalar).
 */
function keyLengths(g: GraphBuilder): { seqlensK: string; total: string } {
  const real = g.op("ReduceSum", ["attention_mask", g.ints("axes_1", [1], [1])], { keepdims: 0 });
  const seqlensK = g.op("Cast", [g.op("Sub", [real, g.ints("one", [], [1])])], { to: 6 });
  const width = g.op("Slice", [
    g.op("Shape", ["attention_mask"]),
    g.ints("width_start", [1], [1]),
    g.ints("width_end", [1], [2]),
  ]);
  const total = g.op("Cast", [g.op("Squeeze", [width, g.ints("axes_0", [1], [0])])], { to: 6 });
  return { seqlensK, total };
}

function embed(g: GraphBuilder, next: () => number, spec: TinyGraphSpec): string {
  const H = spec.hidden;
  const rows = HASH_MODULI.map((modulus, i) => {
    const table = g.floats(`embed_${i}`, [modulus, H], normalArray(next, modulus * H, 1));
    const index = g.op("Mod", ["input_ids", g.ints(`modulus_${i}`, [], [modulus])]);
    return g.op("Gather", [table, index], { axis: 0 });
  });
  const positions = g.floats("positions", [spec.maxPositions, H], sinusoids(spec.maxPositions, H));
  const position = g.op("Gather", [positions, "position_ids"], { axis: 0 });
  return g.op("Add", [g.op("Add", rows), position]);
}

/**
 * Additive masks, 0 where a key may be read and −1e9 elsewhere: padded keys ([B,1,1,T]) and,
 * for the decoder, future keys ([T,T]). Kept apart so no [B,1,T,T] tensor is ever built: at
 * batch 16 × 2,048 tokens that would be 268 MB. With past keys the causal mask is
 * [S, P+S]: new token i reads every past key and new keys up to i (Trilu with k = P).
 */
function attentionMasks(g: GraphBuilder, kind: TinyGraphSpec["kind"], withPast: boolean): string[] {
  const keys = g.op("Unsqueeze", [
    g.op("Cast", ["attention_mask"], { to: 1 }),
    g.ints("axes_12", [2], [1, 2]),
  ]);
  const additive = (allowed: string) =>
    g.op("Mul", [g.op("Sub", [allowed, g.scalar(1)]), g.scalar(1e9)]);
  if (kind === "encoder") return [additive(keys)];
  const length = g.op("Slice", [
    g.op("Shape", ["input_ids"]),
    g.ints("one_start", [1], [1]),
    g.ints("one_end", [1], [2]),
  ]);
  if (!withPast) {
    const square = g.op("Concat", [length, length], { axis: 0 });
    const ones = g.op("ConstantOfShape", [square], { value: Float32Array.of(1) });
    return [additive(keys), additive(g.op("Trilu", [ones], { upper: 0 }))];
  }
  const total = g.op("Slice", [
    g.op("Shape", ["attention_mask"]),
    g.ints("one_start_total", [1], [1]),
    g.ints("one_end_total", [1], [2]),
  ]);
  const past = g.op("Squeeze", [g.op("Sub", [total, length]), g.ints("axes_0", [1], [0])]);
  const rectangle = g.op("Concat", [length, total], { axis: 0 });
  const ones = g.op("ConstantOfShape", [rectangle], { value: Float32Array.of(1) });
  return [additive(keys), additive(g.op("Trilu", [ones, past], { upper: 0 }))];
}

function sinusoids(rows: number, width: number): Float32Array {
  const out = new Float32Array(rows * width);
  for (let pos = 0; pos < rows; pos++) {
    for (let i = 0; i < width; i++) {
      const rate = 1 / 10000 ** ((2 * Math.floor(i / 2)) / width);
      out[pos * width + i] = i % 2 === 0 ? Math.sin(pos * rate) : Math.cos(pos * rate);
    }
  }
  return out;
}
