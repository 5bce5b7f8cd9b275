import { createHash } from "node:crypto";

/**
 * `value` as JSON with every object's keys sorted, so that two specs that mean the same
 * (keys in another order, YAML or JSON) give the same text. Undefined members are left
 * out, as JSON.stringify does.
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value)) ?? "null";
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== "object") return value;
  // No prototype: a key named `__proto__` stays a key.
  const sorted: Record<string, unknown> = Object.create(null);
  for (const key of Object.keys(value).sort()) {
    sorted[key] = sortKeys((value as Record<string, unknown>)[key]);
  }
  return sorted;
}

/** sha256 (hex) of the resolved spec's canonical JSON: what a run records of its spec. */
export function specSha256(spec: unknown): string {
  return createHash("sha256").update(canonicalJson(spec)).digest("hex");
}

/** The top-level fields whose values differ between two specs, sorted. */
export function changedSpecFields(before: unknown, after: unknown): string[] {
  const a = (before ?? {}) as Record<string, unknown>;
  const b = (after ?? {}) as Record<string, unknown>;
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  return [...keys].filter((key) => canonicalJson(a[key]) !== canonicalJson(b[key])).sort();
}
