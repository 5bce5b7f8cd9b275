import { ModelFolderError } from "../errors/model-folder-error.js";
import type { SessionInfo } from "./inference-messages.js";

/**
 * The key/value cache of a decoder exported with past key values (optimum's
 * `text-generation-with-past`): per layer i, inputs `past_key_values.{i}.key` and `.value`
 * shaped [batch, kv heads, past length, head dim], and outputs `present.{i}.key` and
 * `.value` holding the past and new keys, concatenated along the length.
 */
export interface PastLayout {
  layers: number;
  /** Key/value heads (fewer than attention heads under grouped-query attention). */
  heads: number;
  headDim: number;
}

const PAST_INPUT = /^past_key_values\.(\d+)\.(key|value)$/;

export const pastInput = (layer: number, kind: "key" | "value") =>
  `past_key_values.${layer}.${kind}`;
export const presentOutput = (layer: number, kind: "key" | "value") => `present.${layer}.${kind}`;

export function isPastInput(name: string): boolean {
  return PAST_INPUT.test(name);
}

/** Sizes config.json gives when the graph leaves the cache's dimensions symbolic. */
export interface DeclaredAttention {
  kvHeads: number | null;
  headDim: number | null;
}

/**
 * The cache layout of a graph with past inputs, checked against its present outputs;
 * null when the graph takes none (then prefixes are recomputed in every prompt).
 */
export function readPastLayout(
  session: SessionInfo,
  file: string,
  declared: DeclaredAttention,
): PastLayout | null {
  const past = session.inputNames.filter(isPastInput);
  if (past.length === 0) return null;
  const layers = past.length / 2;
  const fail = (message: string): never => {
    throw new ModelFolderError(file, message);
  };
  const shapes: (readonly (number | string)[])[] = [];
  for (let i = 0; i < layers; i++) {
    for (const kind of ["key", "value"] as const) {
      const meta = session.inputMetadata.find((m) => m.name === pastInput(i, kind));
      if (meta === undefined) {
        fail(`the graph has past inputs but no \`${pastInput(i, kind)}\` (layers must be 0..n−1)`);
      } else if (meta.type !== "float32") {
        fail(
          `\`${pastInput(i, kind)}\` is ${meta.type}; prefix reuse needs a float32 cache (export with --dtype fp32)`,
        );
      } else {
        shapes.push(meta.shape);
      }
      if (!session.outputNames.includes(presentOutput(i, kind))) {
        fail(
          `the graph takes \`${pastInput(i, kind)}\` but returns no \`${presentOutput(i, kind)}\``,
        );
      }
    }
  }
  const dim = (index: 1 | 3, fallback: number | null, what: string): number => {
    const value = shapes[0]?.[index];
    if (typeof value === "number") return value;
    if (fallback !== null) return fallback;
    return fail(
      `the cache's ${what} is symbolic in the graph and config.json does not give it (num_key_value_heads, head_dim)`,
    );
  };
  return {
    layers,
    heads: dim(1, declared.kvHeads, "head count"),
    headDim: dim(3, declared.headDim, "head size"),
  };
}
