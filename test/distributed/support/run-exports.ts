import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { assayInProcess } from "@assay/test-support/assay-in-process";
import { EXPORT_TABLE_NAMES } from "../../../apps/cli/src/export-table-names.js";

/** Runs the CLI in this process and returns its exit code, saying what it printed on a failure. */
export async function cli(args: string[]): Promise<number> {
  const { code, stderr } = await assayInProcess(args);
  if (code !== 0) process.stderr.write(stderr);
  return code;
}

export type ExportedRows = Record<string, unknown>[];

/**
 * Every table `assay export` writes for a run, as the command writes it (`--out`, JSON
 * Lines), read back into rows: what a user compares runs by.
 */
export async function exportEveryTable(
  runId: string,
  store: string[],
): Promise<Record<string, ExportedRows>> {
  const dir = mkdtempSync(join(tmpdir(), "assay-exports-"));
  try {
    const tables: Record<string, ExportedRows> = {};
    for (const table of EXPORT_TABLE_NAMES) {
      const out = join(dir, `${table}.jsonl`);
      const code = await cli(["export", runId, "--table", table, "--out", out, ...store]);
      if (code !== 0) throw new Error(`assay export --table ${table} exited ${code}`);
      tables[table] = readFileSync(out, "utf8")
        .split("\n")
        .filter((line) => line !== "")
        .map((line) => JSON.parse(line) as Record<string, unknown>);
    }
    return tables;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** `assay report --format json` of a run, priced by `prices`, as the command writes it. */
export async function reportJson(
  runId: string,
  prices: string,
  store: string[],
): Promise<Record<string, unknown>> {
  const dir = mkdtempSync(join(tmpdir(), "assay-report-"));
  try {
    const out = join(dir, "report.json");
    const args = ["report", runId, "--format", "json", "--prices", prices, "--out", out];
    const code = await cli([...args, ...store]);
    if (code !== 0) throw new Error(`assay report exited ${code}`);
    return JSON.parse(readFileSync(out, "utf8")) as Record<string, unknown>;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The rows with the named fields left out, at any depth (a score's `detail` repeats its
 * usage), sorted by their JSON text: what two runs must agree on whatever order their rows
 * were written in.
 */
export function comparable(rows: ExportedRows, perRun: readonly string[]): string[] {
  return rows.map((row) => JSON.stringify(without(row, perRun))).sort();
}

/**
 * A report's figures with the named fields left out, at any depth, and every number to 12
 * significant digits: a mean over the same values summed in another order (the rows are
 * stored in another order) may differ in its last bits.
 */
export function reportFigures(report: unknown, perRun: readonly string[]): unknown {
  const rounded = (value: unknown): unknown => {
    if (typeof value === "number") return Number(value.toPrecision(12));
    if (Array.isArray(value)) return value.map(rounded);
    if (value === null || typeof value !== "object") return value;
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, rounded(item)]));
  };
  return rounded(without(report, perRun));
}

function without(value: unknown, keys: readonly string[]): unknown {
  if (Array.isArray(value)) return value.map((item) => without(item, keys));
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key]) => !keys.includes(key))
      .map(([key, item]) => [key, without(item, keys)]),
  );
}
