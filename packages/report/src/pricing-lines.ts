import {
  MEASURED_TIME_NOTE,
  type ModelPricing,
  type PriceBasis,
  type RunReport,
  usesMeasuredTime,
} from "@assay/core";

const BASIS_TEXT: Record<PriceBasis, string> = {
  tokens: "per million tokens (reproducible)",
  gpu_hour: "per GPU-hour of measured wall-clock time (varies with load)",
  tokens_and_gpu_hour: "per million tokens plus per GPU-hour of measured time (varies with load)",
};

/**
 * One line per (role, model) saying what its cost was computed from, and the note on
 * measured time when any used it: the table and the HTML print the same words.
 */
export function pricingLines(report: RunReport): { lines: string[]; note: string | null } {
  const pricing: readonly ModelPricing[] = report.cost?.pricing ?? [];
  const lines = pricing.map(
    (p) =>
      `${p.role} ${p.model}: ${p.basis === null ? "not in the price table" : BASIS_TEXT[p.basis]}`,
  );
  return { lines, note: usesMeasuredTime(pricing) ? `Note: ${MEASURED_TIME_NOTE}.` : null };
}
