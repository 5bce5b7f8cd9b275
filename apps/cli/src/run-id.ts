import { basename, extname } from "node:path";

/** `<dataset name>-<UTC date and time>`, e.g. `nightly-20261130-021500`. */
export function defaultRunId(dataset: string, now = new Date()): string {
  const name = basename(dataset, extname(dataset)).replace(/[^A-Za-z0-9_.-]+/g, "-") || "run";
  const stamp = now.toISOString().replace(/[-:]/g, "").replace("T", "-").slice(0, 15);
  return `${name}-${stamp}`;
}

export function parseRunId(value: string): string {
  if (!/^[A-Za-z0-9_.:-]{1,200}$/.test(value)) {
    throw new Error(
      `Expected a run id of letters, digits, "_", ".", ":" or "-" (at most 200), got "${value}"`,
    );
  }
  return value;
}
