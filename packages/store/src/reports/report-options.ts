// Defaults and checks of report options, without the queries: `@assay/store/report-options`
// gives them to a command line that parses its flags before (or without) opening a store.

/** M when not given: three falls in a row are rarely noise. */
export const DEFAULT_FALL_STEPS = 3;
/**
 * Smallest drop a step needs to count as a fall when not given: a hundredth of the 0–1
 * scale. Without it a curve drifting down by 1e-4 a step (noise) was listed as falling.
 */
export const DEFAULT_MIN_FALL = 0.01;

/** `metadata.kind` → ["kind"]; anything else is refused with what was expected. */
export function metadataPath(by: string): string[] {
  const parts = by.split(".");
  if (parts[0] === "metadata" && parts.length > 1 && parts.every((p) => p !== "")) {
    return parts.slice(1);
  }
  throw new RangeError(
    `Expected \`--by\` to be a metadata field such as metadata.kind (dots reach nested keys), got \`${by}\``,
  );
}
