export interface CorrectnessInput {
  /** The dataset's label for this candidate, when it has one. */
  label: boolean | null | undefined;
  /** The deterministic scorer's value; null when unscored or not run. */
  checkValue: number | null | undefined;
}

/** Default pass mark for the deterministic check: at least half credit. */
export const DEFAULT_CORRECT_THRESHOLD = 0.5;

/**
 * A label wins over the deterministic check; without either the answer's correctness is
 * unknown (null), never silently "incorrect".
 */
export function isCorrect(
  input: CorrectnessInput,
  threshold = DEFAULT_CORRECT_THRESHOLD,
): boolean | null {
  if (input.label !== null && input.label !== undefined) return input.label;
  if (input.checkValue === null || input.checkValue === undefined) return null;
  return input.checkValue >= threshold;
}
