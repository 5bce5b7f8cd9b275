import { type Sample, SpecError, targetType } from "@assay/core";

/** Fields a routing rule can match on, besides `metadata.<key>`. */
const FIELDS: Record<string, (sample: Sample) => unknown> = {
  target_type: (sample) => targetType(sample.target),
  id: (sample) => sample.id,
  task_id: (sample) => sample.taskId,
  candidate_index: (sample) => sample.candidateIndex,
  has_label: (sample) => sample.label !== undefined,
  label: (sample) => sample.label ?? null,
};

export function isRoutableField(path: string): boolean {
  return path in FIELDS || (path.startsWith("metadata.") && path.length > "metadata.".length);
}

export function assertRoutableField(path: string, file: string, where: string): void {
  if (isRoutableField(path)) return;
  const known = [...Object.keys(FIELDS), "metadata.<key>"].join(", ");
  throw new SpecError(file, where, `cannot match on \`${path}\`; known fields: ${known}`);
}

/** The value of a routing field for a sample; undefined when the sample lacks it. */
export function sampleField(sample: Sample, path: string): unknown {
  const getter = FIELDS[path];
  if (getter !== undefined) return getter(sample);
  let value: unknown = sample.metadata;
  for (const key of path.slice("metadata.".length).split(".")) {
    // Own keys only: `metadata.constructor` must not find Object's constructor.
    if (typeof value !== "object" || value === null || !Object.hasOwn(value, key)) {
      return undefined;
    }
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}
