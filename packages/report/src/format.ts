import type { EarlyStopCandidate, EarlyStopReport } from "@assay/core";

/** Where every figure the report prints is defined: the last line of the table and the HTML. */
export const DEFINITIONS_LINE =
  "What each figure counts, its denominator and its interval: docs/figures.md in the Assay repository.";

/** Shared number formats of the run report (table and HTML), so both read the same. */
export function formatRate(rate: number | null): string {
  return rate === null ? "n/a" : `${(rate * 100).toFixed(1)}%`;
}

export function formatMoney(amount: number | null, currency: string): string {
  if (amount === null) return "unknown";
  // Small amounts (per sample) need more digits than totals to be worth showing.
  const digits = amount !== 0 && Math.abs(amount) < 0.01 ? 6 : 4;
  return `${amount.toFixed(digits)} ${currency}`;
}

/** A count that may be fractional (a share of passes) or unknown (rows stored before it was counted). */
export function formatCount(count: number | null | undefined): string {
  if (count == null) return "unknown";
  return Number.isInteger(count) ? String(count) : count.toFixed(2);
}

export function formatTokens(tokens: number): string {
  if (tokens >= 1024 && tokens % 1024 === 0) return `${tokens / 1024}k`;
  return String(tokens);
}

export function formatBucket(from: number, to: number | null): string {
  return to === null ? `${formatTokens(from)}+` : `${formatTokens(from)}–${formatTokens(to)}`;
}

/** Early-stop candidates the table and the HTML list; JSON carries every one queried. */
export const EARLY_STOPS_SHOWN = 10;

/** Most decimals a fall is printed with; a smaller step than 1e-12 is not worth showing. */
const MAX_FALL_DIGITS = 12;

/**
 * Decimals that tell every step of a fall apart: two, or more when a step is smaller, so a
 * fall never reads "0.57 → 0.57".
 */
export function fallDigits(values: readonly number[]): number {
  for (let digits = 2; digits < MAX_FALL_DIGITS; digits += 1) {
    const printed = values.map((v) => v.toFixed(digits));
    if (printed.every((text, i) => i === 0 || text !== printed[i - 1])) return digits;
  }
  return MAX_FALL_DIGITS;
}

/** The values of a fall, "0.90 → 0.80 → 0.70", with as many decimals as the steps need. */
export function formatFall(values: readonly number[]): string {
  const digits = fallDigits(values);
  return values.map((v) => v.toFixed(digits)).join(" → ");
}

/**
 * A candidate's whole curve with its fall in brackets, "0.20, [0.90 → 0.80 → 0.70 → 0.60],
 * –, 0.65": the fall alone hides where the curve went after it. An unscored step is "–".
 */
export function formatCurve(c: EarlyStopCandidate): string {
  const digits = fallDigits(c.values);
  const text = (v: number | null) => (v === null ? "–" : v.toFixed(digits));
  const before = c.progress.slice(0, c.fromStep).map(text);
  const after = c.progress.slice(c.fromStep + c.falls + 1).map(text);
  const fall = `[${c.values.map((v) => v.toFixed(digits)).join(" → ")}]`;
  return [...before, fall, ...after].join(", ");
}

/** The trajectory's final value (its last step, the value its score row holds); "–" if unscored. */
export function formatFinal(c: EarlyStopCandidate): string {
  const last = c.progress.at(-1);
  return last === null || last === undefined ? "–" : last.toFixed(fallDigits(c.values));
}

/** What made a trajectory an early-stop candidate: "fell 3 steps in a row, by at least 0.01 each". */
export function fallRule(stops: EarlyStopReport): string {
  const steps = stops.fallSteps === 1 ? "1 step" : `${stops.fallSteps} steps in a row`;
  const by = stops.minFall > 0 ? `, by at least ${stops.minFall} each` : "";
  return `fell ${steps}${by}`;
}

/** "1 task", "2 tasks": a count with its noun. */
export function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? "" : "s"}`;
}

/**
 * A histogram bin as the range it covers, "0.3–0.4". Bins hold their lower edge and not
 * their upper one, except the last, which also holds 1.0 (a perfect score shows as
 * "0.9–1.0", not "0.9").
 */
export function formatBin(bin: number, bins: number): string {
  const edge = (i: number) => (i / bins).toFixed(binDigits(bins));
  return `${edge(bin)}–${edge(bin + 1)}`;
}

/** Fewest decimals (1 to 3) that print every edge of `bins` equal bins exactly. */
function binDigits(bins: number): number {
  const exact = (digits: number) =>
    Array.from({ length: bins + 1 }, (_, i) => i / bins).every(
      (edge) => Number(edge.toFixed(digits)) === edge,
    );
  return [1, 2].find(exact) ?? 3;
}
