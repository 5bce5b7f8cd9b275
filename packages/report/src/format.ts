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

export function formatTokens(tokens: number): string {
  if (tokens >= 1024 && tokens % 1024 === 0) return `${tokens / 1024}k`;
  return String(tokens);
}

export function formatBucket(from: number, to: number | null): string {
  return to === null ? `${formatTokens(from)}+` : `${formatTokens(from)}–${formatTokens(to)}`;
}

/** Early-stop candidates the table and the HTML list; JSON carries every one queried. */
export const EARLY_STOPS_SHOWN = 10;

/** A verifier value (0–1) as a person compares them: two decimals, "–" when unscored. */
export function formatScore(value: number | null): string {
  return value === null ? "–" : value.toFixed(2);
}

/** The values of a fall, "0.90 → 0.80 → 0.70". */
export function formatFall(values: readonly number[]): string {
  return values.map(formatScore).join(" → ");
}
