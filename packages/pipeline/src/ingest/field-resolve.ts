import {
  describeValue,
  formatFieldPath,
  type ParsedLine,
  type PathStep,
  printable,
} from "@assay/core/dataset-line";

/** A field read from a column: Assay's name for it, the column as the spec writes it. */
export interface FieldSource {
  /** `target`, `metadata.subject`, `candidates.answer`: the spec key it comes from. */
  field: string;
  column: string;
  steps: PathStep[];
}

type Resolved = { ok: true; value: unknown } | { ok: false; depth: number; parent: unknown };

/** The value at `steps`, own keys only; else how far the path got and what stopped it. */
export function resolve(record: unknown, steps: readonly PathStep[]): Resolved {
  let value = record;
  for (let depth = 0; depth < steps.length; depth += 1) {
    const step = steps[depth] as PathStep;
    if (typeof step === "number") {
      if (!Array.isArray(value)) return { ok: false, depth, parent: value };
      // A negative index counts from the end: -1 is the last item.
      const index = step < 0 ? value.length + step : step;
      if (index < 0 || index >= value.length) return { ok: false, depth, parent: value };
      value = value[index];
    } else if (typeof step === "object") {
      if (!Array.isArray(value)) return { ok: false, depth, parent: value };
      value = value.filter(
        (item) => isObject(item) && Object.hasOwn(item, step.key) && item[step.key] === step.equals,
      );
    } else {
      if (!isObject(value) || !Object.hasOwn(value, step))
        return { ok: false, depth, parent: value };
      value = value[step];
    }
  }
  return { ok: true, value };
}

/** Why a path found nothing, after "missing": where it stopped, when not at the top. */
export function whyMissing(
  steps: readonly PathStep[],
  found: { depth: number; parent: unknown },
): string {
  if (found.depth === 0) return "";
  const step = steps[found.depth];
  const inList = typeof step !== "string";
  const wanted = inList ? "a list that long" : "an object with that key";
  const container = inList ? Array.isArray(found.parent) : isObject(found.parent);
  const prefix = formatFieldPath(steps.slice(0, found.depth));
  if (container) {
    const empty = Array.isArray(found.parent) && found.parent.length === 0;
    return `; \`${printable(prefix)}\` is ${empty ? "an empty list" : `not ${wanted}`}`;
  }
  return `; \`${printable(prefix)}\` is ${describeValue(found.parent)}, not ${inList ? "a list" : "an object"}`;
}

export function missing(
  field: string,
  source: Pick<FieldSource, "column" | "steps">,
  found: { depth: number; parent: unknown },
): ParsedLine {
  const why = whyMissing(source.steps, found);
  return {
    ok: false,
    field,
    message: `missing (mapped from column ${quoteColumn(source.column)})${why}`,
  };
}

/** A plain object (not null, not a list): a record, or a step into one. */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A column as messages name it, in backticks, unprintable characters escaped. */
export function quoteColumn(text: string): string {
  return `\`${printable(text)}\``;
}
