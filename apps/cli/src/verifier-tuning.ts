import { type AssayEnv, readEnv } from "@assay/core";
import type { VerifierFlags } from "./verifier-flags.js";

type VerifierModel = import("@assay/verifier/scorers").VerifierModel;

/** The part of the verifier's load options an operator sets; unset fields: assay.json. */
export interface VerifierTuning {
  batch?: { maxBatchTokens?: number; maxBatchRows?: number };
  reusePrefixes?: boolean;
}

/**
 * Flag > environment (ASSAY_MAX_BATCH_TOKENS, ASSAY_MAX_BATCH_ROWS, ASSAY_PREFIX_REUSE) >
 * the model's assay.json > the verifier's defaults; the loader applies the last two.
 */
export function verifierTuning(flags: VerifierFlags, env: AssayEnv = readEnv()): VerifierTuning {
  const maxBatchTokens = flags.maxBatchTokens ?? env.ASSAY_MAX_BATCH_TOKENS;
  const maxBatchRows = flags.maxBatchRows ?? env.ASSAY_MAX_BATCH_ROWS;
  const prefixReuse = flags.prefixReuse ?? env.ASSAY_PREFIX_REUSE;
  const batch = {
    ...(maxBatchTokens !== undefined && { maxBatchTokens }),
    ...(maxBatchRows !== undefined && { maxBatchRows }),
  };
  return {
    ...(Object.keys(batch).length > 0 && { batch }),
    ...(prefixReuse !== undefined && { reusePrefixes: prefixReuse === "on" }),
  };
}

/** One line saying what a loaded model runs with, so an operator sees which setting won. */
export function describeVerifierSettings(model: VerifierModel): string {
  const { maxBatchTokens, maxBatchRows } = model.batchOptions;
  const reuse = model.reusesPrefixes
    ? "on"
    : model.prefixReuseAllowed
      ? "off (the graph cannot reuse prefixes)"
      : "off";
  return `Verifier ${model.name}: at most ${maxBatchTokens} tokens and ${maxBatchRows} rows per forward pass, prefix reuse ${reuse}`;
}
