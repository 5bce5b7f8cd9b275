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
