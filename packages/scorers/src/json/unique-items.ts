import type { KeywordDefinition } from "ajv";
import type { DataValidateFunction } from "ajv/dist/types/index.js";

/**
 * `uniqueItems` in time linear in the answer. Ajv's own check compares every pair of
 * items whose type it cannot prove scalar (20,000 objects: ~30 s on one scorer); this one
 * files each item under a canonical text (object keys sorted, so key order does not
 * matter, as in JSON Schema equality) and finds a repeat with one lookup per item.
 */
export const linearUniqueItems: KeywordDefinition = {
  keyword: "uniqueItems",
  type: "array",
  schemaType: "boolean",
  errors: true,
  compile(unique: boolean) {
    if (!unique) return () => true;
    const validate: DataValidateFunction = (data: unknown[]) => {
      const duplicate = firstDuplicate(data);
      validate.errors =
        duplicate === undefined
          ? undefined
          : [
              {
                keyword: "uniqueItems",
                params: duplicate,
                message: `must NOT have duplicate items (items ## ${duplicate.j} and ${duplicate.i} are identical)`,
              },
            ];
      return duplicate === undefined;
    };
    return validate;
  },
};

/** The first repeated item's index `i` and the earlier index `j` it repeats. */
export function firstDuplicate(items: readonly unknown[]): { i: number; j: number } | undefined {
  const seen = new Map<string, number>();
  for (let i = 0; i < items.length; i++) {
    const key = canonicalJson(items[i]);
    const j = seen.get(key);
    if (j !== undefined) return { i, j };
    seen.set(key, i);
  }
  return undefined;
}

/** JSON text with object keys sorted: equal JSON values (JSON Schema equality) give equal text. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (typeof value === "object" && value !== null) {
    const record = value as Record<string, unknown>;
    const fields = Object.keys(record)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonicalJson(record[key])}`);
    return `{${fields.join(",")}}`;
  }
  // JSON.stringify writes -0 as 0, matching JSON Schema's numeric equality (and ajv's ===).
  return JSON.stringify(value) ?? "null";
}
