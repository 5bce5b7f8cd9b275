/**
 * How many generated cases a property runs: `base`, the count the suite runs every time,
 * times `ASSAY_PROPERTY_SCALE` when it is set, for a deep run before a release or after a
 * change to the code a property guards (`ASSAY_PROPERTY_SCALE=100 npx vitest run <file>`).
 * One variable for every property, so a deep run needs no list of names.
 */
export function propertyRuns(base: number): number {
  return Math.max(1, Math.round(base * propertyScale()));
}

/** The factor `ASSAY_PROPERTY_SCALE` asks for; 1 when unset. */
export function propertyScale(): number {
  const raw = process.env.ASSAY_PROPERTY_SCALE;
  if (raw === undefined || raw === "") return 1;
  const scale = Number(raw);
  if (!Number.isFinite(scale) || scale <= 0) {
    throw new Error(
      `ASSAY_PROPERTY_SCALE=${raw} is not a positive number: set it to the factor the ` +
        "properties' runs are multiplied by (e.g. 10), or unset it for the usual runs",
    );
  }
  return scale;
}
