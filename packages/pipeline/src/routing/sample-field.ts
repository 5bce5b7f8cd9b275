import { printable, type Sample, SpecError, targetType } from "@assay/core";

/**
 * Fields a routing rule can match on, besides `metadata.<key>`. A Map, not an object
 * literal: a rule's key such as `valueOf` or `hasOwnProperty` must not find a function
 * every object inherits.
 */
const FIELDS = new Map<string, (sample: Sample) => unknown>([
  ["target_type", (sample) => targetType(sample.target)],
  ["id", (sample) => sample.id],
  ["task_id", (sample) => sample.taskId],
  ["candidate_index", (sample) => sample.candidateIndex],
  ["has_label", (sample) => sample.label !== undefined],
  ["label", (sample) => sample.label ?? null],
]);

export function isRoutableField(path: string): boolean {
  return FIELDS.has(path) || (path.startsWith("metadata.") && path.length > "metadata.".length);
}

export function assertRoutableField(path: string, file: string, where: string): void {
  if (isRoutableField(path)) return;
  const known = [...FIELDS.keys(), "metadata.<key>"].join(", ");
  throw new SpecError(
    file,
    where,
    `cannot match on \`${printable(path)}\`; known fields: ${known}`,
  );
}

/** The value of a routing field for a sample; undefined when the sample lacks it. */
export function sampleField(sample: Sample, path: string): unknown {
  return fieldReader(path)(sample);
}

/**
 * `sampleField` for one path, worked out once: routing reads the same few paths of every
 * sample, and splitting a path per sample was a good part of what routing allocated.
 */
export function fieldReader(path: string): (sample: Sample) => unknown {
  const getter = FIELDS.get(path);
  if (getter !== undefined) return getter;
  const keys = path.slice("metadata.".length).split(".");
  return (sample) => {
    let value: unknown = sample.metadata;
    for (const key of keys) {
      // Own keys only: `metadata.constructor` must not find Object's constructor.
      if (typeof value !== "object" || value === null || !Object.hasOwn(value, key)) {
        return undefined;
      }
      value = (value as Record<string, unknown>)[key];
    }
    return value;
  };
}
