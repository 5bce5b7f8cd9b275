import * as ort from "onnxruntime-node";
import type { ModelIo } from "./model-io.js";

/**
 * Runs one padded forward pass and returns, for each row, the output vector at that
 * row's last REAL position (never position −1 of a right-padded row).
 */
export class ModelRunner {
  constructor(
    readonly session: ort.InferenceSession,
    readonly io: ModelIo,
    readonly paddingSide: "left" | "right",
    readonly padId: number,
  ) {}

  async run(rows: readonly (readonly number[])[], output: string): Promise<Float32Array[]> {
    const feeds = this.feeds(rows);
    const result = await this.session.run(feeds, [output]);
    const tensor = result[output];
    if (tensor === undefined) throw new Error(`onnxruntime returned no \`${output}\` output`);
    const [batch, length, width] = tensor.dims as [number, number, number];
    const data = tensor.data as Float32Array;
    if (batch !== rows.length) throw new Error(`\`${output}\` has batch ${batch}, expected ${rows.length}`);
    return rows.map((row, r) => {
      const position = this.paddingSide === "left" ? length - 1 : row.length - 1;
      const offset = (r * length + position) * width;
      return data.slice(offset, offset + width);
    });
  }

  /** The padded int64 tensors for `rows`, with position ids counted over real tokens only. */
  feeds(rows: readonly (readonly number[])[]): Record<string, ort.Tensor> {
    const length = Math.max(...rows.map((r) => r.length));
    const size = rows.length * length;
    const ids = new BigInt64Array(size).fill(BigInt(this.padId));
    const mask = new BigInt64Array(size);
    const positions = new BigInt64Array(size);
    rows.forEach((row, r) => {
      const start = r * length + (this.paddingSide === "left" ? length - row.length : 0);
      for (let i = 0; i < row.length; i++) {
        ids[start + i] = BigInt(row[i] ?? 0);
        mask[start + i] = 1n;
        positions[start + i] = BigInt(i);
      }
    });
    const dims = [rows.length, length];
    const feeds: Record<string, ort.Tensor> = {
      input_ids: new ort.Tensor("int64", ids, dims),
      attention_mask: new ort.Tensor("int64", mask, dims),
    };
    if (this.io.hasPositionIds) feeds.position_ids = new ort.Tensor("int64", positions, dims);
    if (this.io.hasTokenTypeIds) feeds.token_type_ids = new ort.Tensor("int64", new BigInt64Array(size), dims);
    return feeds;
  }
}
