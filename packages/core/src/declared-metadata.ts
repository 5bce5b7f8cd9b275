import { parseFieldPath } from "./field-path.js";

/**
 * The metadata keys a spec's `fields.metadata` declares: the last key of each listed column,
 * the name the column is copied in under (`metadata.<key>`). One column holding an object,
 * or no mapping, declares none: its keys are the data's, unknown until the rows are read.
 * Takes the stored spec's value as it is (the store reads it from JSON).
 */
export function declaredMetadataKeys(metadata: unknown): string[] {
  if (!Array.isArray(metadata)) return [];
  const keys: string[] = [];
  for (const column of metadata) {
    if (typeof column !== "string") continue;
    const parsed = parseFieldPath(column);
    const last = parsed.ok ? parsed.steps.at(-1) : undefined;
    if (typeof last === "string" && !keys.includes(last)) keys.push(last);
  }
  return keys;
}
