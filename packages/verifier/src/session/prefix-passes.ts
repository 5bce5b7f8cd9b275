import type { Int64Feed, TreePass } from "./inference-messages.js";
import { alignedPastWidth, MIN_PASS_WIDTH } from "./padded-length.js";
import type { PrefixTree } from "./prefix-tree.js";

/**
 * The inputs of each pass of a prefix tree. Rows are right-padded: row r's keys are its
 * parent's cache (length P_r) padded to the pass's widest past P (rounded up to a multiple
 * of `PAST_ALIGN`), then its own tokens padded to the longest S (at least `MIN_PASS_WIDTH`).
 * `attention_mask` [rows, P + S] hides both gaps; position ids continue the past (P_r,
 * P_r + 1, …), so a token sees exactly the keys and position it would have in the whole
 * prompt, and its output equals the no-reuse pass's (within rounding, `padded-length.ts`).
 */
export function prefixPasses(
  tree: PrefixTree,
  passes: readonly number[][],
  padId: number,
): TreePass[] {
  const readsByNode = new Map<number, [number, number][]>();
  tree.reads.forEach((read, request) => {
    const list = readsByNode.get(read.node) ?? [];
    list.push([read.offset, request]);
    readsByNode.set(read.node, list);
  });
  return passes.map((rows) => {
    const nodes = rows.map(
      (i) => tree.nodes[i] ?? { parent: -1, start: 0, ids: [], children: [], owner: 0 },
    );
    const pastWidth = alignedPastWidth(nodes.map((n) => n.start));
    const width = Math.max(MIN_PASS_WIDTH, ...nodes.map((n) => n.ids.length));
    const ids = new BigInt64Array(rows.length * width).fill(BigInt(padId));
    const positions = new BigInt64Array(rows.length * width);
    const mask = new BigInt64Array(rows.length * (pastWidth + width));
    const reads: [number, number, number][] = [];
    nodes.forEach((node, r) => {
      mask.fill(1n, r * (pastWidth + width), r * (pastWidth + width) + node.start);
      const own = r * (pastWidth + width) + pastWidth;
      mask.fill(1n, own, own + node.ids.length);
      node.ids.forEach((id, i) => {
        ids[r * width + i] = BigInt(id);
        positions[r * width + i] = BigInt(node.start + i);
      });
      for (const [offset, request] of readsByNode.get(rows[r] ?? -1) ?? []) {
        reads.push([r, offset, request]);
      }
    });
    const dims = [rows.length, width];
    const feeds: Record<string, Int64Feed> = {
      input_ids: { data: ids, dims },
      attention_mask: { data: mask, dims: [rows.length, pastWidth + width] },
      position_ids: { data: positions, dims },
    };
    return {
      feeds,
      nodes: [...rows],
      parents: nodes.map((n) => n.parent),
      pastLengths: nodes.map((n) => n.start),
      newLengths: nodes.map((n) => n.ids.length),
      children: nodes.map((n) => n.children.length),
      pastWidth,
      reads,
    };
  });
}
