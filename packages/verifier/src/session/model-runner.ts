import type { BatchLimits } from "../batch/plan-batches.js";
import { PREPARED } from "../graph/prepared-names.js";
import type { Int64Feed, TreePass } from "./inference-messages.js";
import type { ModelIo } from "./model-io.js";
import { paddedLength } from "./padded-length.js";
import { prefixPasses } from "./prefix-passes.js";
import {
  buildPrefixTree,
  mergePrefixTrees,
  type PrefixTree,
  planPrefixPasses,
} from "./prefix-tree.js";
import { scorePositions } from "./score-position.js";
import type { WorkerSession } from "./worker-session.js";

/**
 * Runs one padded forward pass and returns, for each row, the output vector at that row's
 * score position: its last real token before the special tokens the tokenizer appends
 * (never position −1 of a right-padded row, never an appended EOS or SEP). A prepared graph
 * gets the positions as `score_position` and returns only those vectors.
 */
export class ModelRunner {
  constructor(
    readonly session: WorkerSession,
    readonly io: ModelIo,
    readonly paddingSide: "left" | "right",
    readonly padId: number,
    /** Special tokens at the end of every row (`VerifierTokenizer.appendedTokens`). */
    readonly appendedTokens = 0,
  ) {}

  /** `scoreTokenIds`: the scale's token ids, fed to a graph prepared for a distribution head. */
  run(
    rows: readonly (readonly number[])[],
    output: string,
    scoreTokenIds: readonly number[] = [],
  ): Promise<Float32Array[]> {
    const positions = scorePositions(rows, this.paddingSide, this.appendedTokens);
    const feeds = padRows(rows, this.io, this.paddingSide, this.padId);
    if (this.io.prepared) Object.assign(feeds, preparedFeeds(this.io, positions, scoreTokenIds));
    return this.session.run(feeds, output, positions, this.io.past);
  }

  /**
   * Prefix reuse is possible: the graph takes past key values and position ids (without
   * them the positions of tokens after a padded past would be wrong).
   */
  get canReusePrefixes(): boolean {
    return this.io.past !== null && this.io.hasPositionIds && !this.io.hasTokenTypeIds;
  }

  /**
   * For each group (one sample's prompts), the vector of `output` at the score position of
   * each of its sequences, computing every token prefix shared within a group once (a
   * with-past graph only; see `canReusePrefixes`). Groups run in the same passes but share
   * nothing. Per sequence, `computed` is the tokens first computed for it (the rest of its
   * tokens came from a cache); `passShares` is its share of the passes: each pass counts 1,
   * split evenly over its rows (tree nodes), a node's part going to the sequence it is
   * counted for in `computed`; `paddedTokens` is what the passes computed, padding included.
   * `scoreTokenIds` as for `run`.
   */
  async runSharingPrefixes(
    groups: readonly (readonly (readonly number[])[])[],
    output: string,
    limits: BatchLimits = {},
    scoreTokenIds: readonly number[] = [],
  ): Promise<{
    vectors: Float32Array[][];
    computed: number[][];
    passShares: number[][];
    /** Forward passes run. */
    passes: number;
    paddedTokens: number;
  }> {
    const past = this.io.past;
    if (past === null) throw new Error("prefix reuse needs a graph with past key values");
    const forest = mergePrefixTrees(
      groups.map((sequences) =>
        buildPrefixTree(
          sequences,
          sequences.map((row) => Math.max(0, row.length - 1 - this.appendedTokens)),
          { oneReadPerNode: this.io.prepared },
        ),
      ),
    );
    const passes = prefixPasses(forest, planPrefixPasses(forest.nodes, limits), this.padId);
    if (this.io.prepared) {
      for (const pass of passes) {
        Object.assign(pass.feeds, preparedFeeds(this.io, readOffsets(pass), scoreTokenIds));
      }
    }
    const vectors = await this.session.runTree({
      output,
      past,
      passes,
      requests: forest.reads.length,
    });
    const paddedTokens = passes.reduce(
      (sum, pass) => sum + pass.nodes.length * (pass.feeds.input_ids?.dims[1] ?? 0),
      0,
    );
    const starts = groups.map((_, g) =>
      groups.slice(0, g).reduce((sum, sequences) => sum + sequences.length, 0),
    );
    const split = <T>(all: readonly T[]) =>
      groups.map((sequences, g) => all.slice(starts[g], (starts[g] ?? 0) + sequences.length));
    return {
      vectors: split(vectors),
      computed: split(forest.computed),
      passShares: split(passSharesOf(forest, passes)),
      passes: passes.length,
      paddedTokens,
    };
  }
}

/** Per sequence of `tree`: 1 / rows of each pass, for every row it is the owner of. */
function passSharesOf(tree: PrefixTree, passes: readonly TreePass[]): number[] {
  const shares = tree.reads.map(() => 0);
  for (const pass of passes) {
    for (const node of pass.nodes) {
      const owner = tree.nodes[node]?.owner ?? 0;
      shares[owner] = (shares[owner] ?? 0) + 1 / pass.nodes.length;
    }
  }
  return shares;
}

/**
 * Per row of a prefix pass, where a prepared graph reads it: an offset into the row's own
 * (new) tokens, since the graph gathers along the sequence of this pass, not of the whole
 * prompt. A row nobody reads (an inner node, run for its cache) gets 0 and its output is
 * dropped.
 */
export function readOffsets(pass: TreePass): number[] {
  const offsets = pass.nodes.map(() => 0);
  for (const [row, offset] of pass.reads) offsets[row] = offset;
  return offsets;
}

/** The inputs a prepared graph adds: where to read each row, and which tokens to score. */
export function preparedFeeds(
  io: ModelIo,
  positions: readonly number[],
  scoreTokenIds: readonly number[],
): Record<string, Int64Feed> {
  const feeds: Record<string, Int64Feed> = {
    [PREPARED.position]: {
      data: BigInt64Array.from(positions, (p) => BigInt(p)),
      dims: [positions.length],
    },
  };
  if (io.hasScoreTokenIds) {
    feeds[PREPARED.tokenIds] = {
      data: BigInt64Array.from(scoreTokenIds, (id) => BigInt(id)),
      dims: [scoreTokenIds.length],
    };
  }
  return feeds;
}

/** The padded int64 inputs for `rows`; position ids count real tokens only. */
export function padRows(
  rows: readonly (readonly number[])[],
  io: ModelIo,
  paddingSide: "left" | "right",
  padId: number,
): Record<string, Int64Feed> {
  const length = paddedLength(rows);
  const size = rows.length * length;
  const ids = new BigInt64Array(size).fill(BigInt(padId));
  const mask = new BigInt64Array(size);
  const positions = new BigInt64Array(size);
  rows.forEach((row, r) => {
    const start = r * length + (paddingSide === "left" ? length - row.length : 0);
    for (let i = 0; i < row.length; i++) {
      ids[start + i] = BigInt(row[i] ?? 0);
      mask[start + i] = 1n;
      positions[start + i] = BigInt(i);
    }
  });
  const dims = [rows.length, length];
  const feeds: Record<string, Int64Feed> = {
    input_ids: { data: ids, dims },
    attention_mask: { data: mask, dims },
  };
  if (io.hasPositionIds) feeds.position_ids = { data: positions, dims };
  if (io.hasTokenTypeIds) feeds.token_type_ids = { data: new BigInt64Array(size), dims };
  return feeds;
}
