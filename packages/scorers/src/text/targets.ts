import { type ScoredScore, scored, type Target, type UnscoredScore, unscored } from "@assay/core";

/**
 * The target as a list of strings for text scorers. A list means "any of these is right"
 * (SQuAD keeps several ground truths per question); numbers and booleans become text.
 * An empty target would match every answer, so it is refused rather than scored.
 */
export function textTargets(target: Target | undefined): string[] | UnscoredScore {
  if (target === undefined) return unscored("invalid_target", "this scorer needs a `target`");
  if (typeof target === "object" && !Array.isArray(target)) {
    return unscored("invalid_target", "expected a string or a list of strings, got an object");
  }
  const list = Array.isArray(target) ? target : [target];
  if (list.length === 0) return unscored("invalid_target", "the target list is empty");
  const texts = list.map(String);
  const empty = texts.findIndex((text) => text.trim() === "");
  if (empty !== -1) {
    const which = Array.isArray(target) ? `target[${empty}]` : "the target";
    return unscored("invalid_target", `${which} is empty`);
  }
  return texts;
}

export interface TargetResult {
  value: number;
  detail?: Record<string, unknown>;
}

/** Scores against each target and keeps the best, recording which target it was. */
export function bestOverTargets(
  targets: readonly string[],
  scoreOne: (target: string) => TargetResult,
): ScoredScore {
  let best: (TargetResult & { target: string }) | undefined;
  for (const target of targets) {
    const result = scoreOne(target);
    if (best === undefined || result.value > best.value) best = { ...result, target };
    if (best.value === 1) break;
  }
  if (best === undefined) throw new RangeError("bestOverTargets needs at least one target");
  return scored(best.value, { ...best.detail, target: best.target });
}
