import { nextBatchSize } from "../batch/plan-batches.js";

/** A run of tokens computed once: its keys and values extend its parent's (past) cache. */
export interface PrefixNode {
  /** Index of the node whose cache this one continues; −1 for a root (no past). */
  parent: number;
  /** Tokens before this node on every path through it: the past length it runs with. */
  start: number;
  ids: number[];
  children: number[];
  /** The sequence this node is counted for: the first through it (as in `computed`). */
  owner: number;
}

/** Where one sequence is scored: a position inside one node. */
export interface PrefixRead {
  node: number;
  offset: number;
}

export interface PrefixTree {
  nodes: PrefixNode[];
  /** One per sequence, in input order. */
  reads: PrefixRead[];
  /** Per sequence: the tokens first computed for it (each node counts once, for the first sequence through it). */
  computed: number[];
}

/**
 * The compressed trie (radix tree) of `sequences`: every token prefix shared by several
 * sequences becomes one node, so it is computed once. `scoreIndex[s]` is the position
 * sequence s is read at; its output depends only on the tokens up to it, all on its path.
 * `oneReadPerNode`: a node ends before a second score position inside it, so all reads of a
 * node share one offset (a prepared graph returns one position per row).
 */
export function buildPrefixTree(
  sequences: readonly (readonly number[])[],
  scoreIndex: readonly number[],
  { oneReadPerNode = false }: { oneReadPerNode?: boolean } = {},
): PrefixTree {
  const nodes: PrefixNode[] = [];
  const reads: PrefixRead[] = sequences.map(() => ({ node: -1, offset: 0 }));
  const computed = sequences.map(() => 0);
  const grow = (members: number[], depth: number, parent: number): void => {
    const first = members[0] ?? 0;
    const head = sequences[first] ?? [];
    const readAt = (at: number) => members.some((m) => scoreIndex[m] === at);
    let read = readAt(depth);
    let end = depth + 1;
    while (
      end < head.length &&
      members.every((m) => (sequences[m]?.length ?? 0) > end && sequences[m]?.[end] === head[end])
    ) {
      if (oneReadPerNode && readAt(end)) {
        if (read) break;
        read = true;
      }
      end += 1;
    }
    const index = nodes.length;
    const owner = Math.min(...members);
    nodes.push({ parent, start: depth, ids: head.slice(depth, end), children: [], owner });
    if (parent >= 0) nodes[parent]?.children.push(index);
    computed[owner] = (computed[owner] ?? 0) + end - depth;
    for (const m of members) {
      const at = scoreIndex[m] ?? 0;
      if (at >= depth && at < end) reads[m] = { node: index, offset: at - depth };
    }
    for (const group of groupByToken(members, sequences, end)) grow(group, end, index);
  };
  for (const group of groupByToken(
    sequences.map((_, i) => i),
    sequences,
    0,
  )) {
    grow(group, 0, -1);
  }
  return { nodes, reads, computed };
}

/** Members longer than `at`, grouped by their token there (first-seen order). */
function groupByToken(
  members: readonly number[],
  sequences: readonly (readonly number[])[],
  at: number,
): number[][] {
  const groups = new Map<number, number[]>();
  for (const m of members) {
    const token = sequences[m]?.[at];
    if (token === undefined) continue;
    const group = groups.get(token);
    if (group === undefined) groups.set(token, [m]);
    else group.push(m);
  }
  return [...groups.values()];
}

/**
 * The forward passes that compute a tree: level by level (a node runs after its parent),
 * each level split into batches within the token budget, counting a row's past and new
 * tokens (the attention reads both).
 */
export function planPrefixPasses(
  nodes: readonly PrefixNode[],
  limits: { maxBatchTokens?: number; maxBatchRows?: number } = {},
): number[][] {
  const passes: number[][] = [];
  let level = nodes.flatMap((node, i) => (node.parent === -1 ? [i] : []));
  while (level.length > 0) {
    const total = (i: number) => (nodes[i]?.start ?? 0) + (nodes[i]?.ids.length ?? 0);
    const own = (i: number) => nodes[i]?.ids.length ?? 0;
    // Rows of similar new length together: padding of new tokens costs a whole row's work,
    // padding of the past only masked attention.
    const sorted = [...level].sort((a, b) => own(b) - own(a) || total(b) - total(a));
    while (sorted.length > 0) {
      const size = nextBatchSize(sorted.map(total), limits);
      passes.push(sorted.splice(0, size));
    }
    level = level.flatMap((i) => nodes[i]?.children ?? []);
  }
  return passes;
}

/**
 * One forest of several trees (one per sample): nodes, reads and sequences concatenated in
 * order, indices shifted. No node is shared between trees, so a sample's results and
 * token counts never depend on which samples ran beside it.
 */
export function mergePrefixTrees(trees: readonly PrefixTree[]): PrefixTree {
  const forest: PrefixTree = { nodes: [], reads: [], computed: [] };
  for (const tree of trees) {
    const base = forest.nodes.length;
    const sequences = forest.reads.length;
    const shift = (i: number) => (i < 0 ? i : i + base);
    for (const node of tree.nodes) {
      forest.nodes.push({
        ...node,
        parent: shift(node.parent),
        children: node.children.map(shift),
        owner: node.owner + sequences,
      });
    }
    for (const read of tree.reads) forest.reads.push({ ...read, node: shift(read.node) });
    forest.computed.push(...tree.computed);
  }
  return forest;
}
