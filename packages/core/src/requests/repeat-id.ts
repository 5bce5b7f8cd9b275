/**
 * Best-of-N on a provider without `n` (the Responses API, Anthropic) is N requests, one per
 * sample, with custom ids `<id>__s<k>`: letters, digits and "_" only, so Anthropic takes
 * them, and the answer join gathers them back into one task of N candidates.
 */
const REPEAT = /__s(\d{1,4})$/;

/** At most this many samples per row: `--samples` is refused above it. */
export const MAX_SAMPLES = 1000;

export function repeatCustomId(id: string, sample: number): string {
  return `${id}__s${sample}`;
}

/** The sample index a repeat custom id names, or undefined for any other custom id. */
export function repeatIndexOf(customId: string): number | undefined {
  const match = REPEAT.exec(customId);
  if (match === null) return undefined;
  const index = Number(match[1]);
  return index < MAX_SAMPLES ? index : undefined;
}
