import type { TruncationRecord } from "../fit/truncation-record.js";

/** One prompt's result (one criterion × one variant). */
export interface VariantResult {
  variant: number;
  /** The head's value in [0, 1]; null when this prompt could not be scored. */
  value: number | null;
  /** Probe: hidden · probe + bias, before the sigmoid. */
  raw?: number;
  /** Distribution: Σ p over the scale tokens. */
  mass?: number;
  /** Distribution: the G-bin distribution (renormalized), worst level first. */
  distribution?: number[];
}

export interface CriterionResult {
  name: string;
  /** Mean over the criterion's K variants; null if any is unscored. */
  value: number | null;
  variants: VariantResult[];
}

export interface VerifierUsage {
  /** Tokens the model computed, over all C×K prompts (and trajectory prefixes). */
  inputTokens: number;
  /**
   * Tokens of those prompts read from a shared prefix's cache instead of computed (prefix
   * reuse on a with-past model; else 0). inputTokens + cachedInputTokens = tokens sent.
   */
  cachedInputTokens: number;
  outputTokens: 0;
  /** This sample's share of the forward passes it ran in (by real tokens), in ms. */
  computeMs: number;
  device: string;
  model: string;
  /** Forward-pass rows this sample planned: C×K, times (1 + steps) for a trajectory. */
  calls: number;
  /** Prompts scored: each ran in a forward pass (refused and unbuilt ones did not). */
  prompts: number;
  /**
   * This sample's share of the forward passes its prompts ran in: each pass counts 1, split
   * evenly over its rows, so the shares of every sample a pass served add up to 1.
   */
  forwardPasses: number;
}

/** `score.detail` of every verifier score, scored or unscored. */
export interface VerifierDetail extends Record<string, unknown> {
  head: "probe" | "distribution";
  /** Distribution head: the scale levels, worst first (labels of each G-bin distribution). */
  scale?: string[];
  criteria: CriterionResult[];
  /** One record per prompt, in criterion-major order. */
  truncations: (TruncationRecord & { criterion: string; variant: number })[];
  /** Any prompt had to be fitted. */
  truncated: boolean;
  /** The answer itself was cut (keep-answer-tail): do not trust the value. */
  unreliable: boolean;
  usage: VerifierUsage;
  /** assay.json `family`, when it names one: the report's self-preference check reads it. */
  family?: string;
  /** The Hub commit sha of a hub-id model (`usage.model` names the id as written). */
  revision?: string;
  /**
   * The day (YYYY-MM-DD) the chat template's `strftime_now` rendered into the prompt
   * (assay.json `chat.date` or its default), when the template writes one.
   */
  templateDate?: string;
  /**
   * Untrusted fields (`question`, `answer`, a metadata slot) whose text had delimiters or
   * the tokenizer's added tokens broken before it entered the prompt, with how many
   * occurrences: absent when nothing was changed. The report counts samples that have it.
   */
  altered?: Record<string, number>;
  /**
   * Trajectories only (the sample has `steps`): entry i is the value of the prefix
   * steps[0..i] joined with newlines as the answer (same prompts, same head, same mean),
   * null where that prefix would be unscored. The score's own value stays the value of
   * `answer`; the full trajectory's value is the last entry. Prefix passes count in `usage`
   * but not in `truncations`.
   */
  progress?: (number | null)[];
}

/** Usage before any pass: the calls a sample will make, on `model`'s device. */
export function emptyUsage(
  model: { device: string; identity: string },
  calls: number,
): VerifierUsage {
  return {
    inputTokens: 0,
    cachedInputTokens: 0,
    outputTokens: 0,
    computeMs: 0,
    device: model.device,
    model: model.identity,
    calls,
    prompts: 0,
    forwardPasses: 0,
  };
}
