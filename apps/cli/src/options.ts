import { DATASET_FORMATS, type DatasetFormat, datasetFormat } from "@assay/core/input-formats";
import { InvalidArgumentError } from "commander";

/**
 * Every numeric flag is parsed here, by commander, so a bad value is always bad usage
 * (exit 2) with a message naming the flag, whichever command it was given to.
 */
interface NumberRange {
  /** Smallest accepted value. */
  min: number;
  /** Largest accepted value; none: any finite number. */
  max?: number;
  /** What the value counts, when "a number" alone would not say, e.g. "seconds". */
  unit?: string;
  /** Said after the range, e.g. what 0 means. */
  note?: string;
}

/** Commander parser for a whole-number option, 1 and up unless `range` says. */
export function wholeNumber(flag: string, range: Partial<NumberRange> = {}) {
  return numberParser(flag, { min: 1, ...range }, true);
}

/** Commander parser for a number option that may have a fraction, 0 and up unless `range` says. */
export function decimalNumber(flag: string, range: Partial<NumberRange> = {}) {
  return numberParser(flag, { min: 0, ...range }, false);
}

/** Commander parser for a positive integer option. */
export function positiveInt(flag: string) {
  return wholeNumber(flag);
}

function numberParser(flag: string, range: NumberRange, integer: boolean) {
  const { min, max = Number.MAX_SAFE_INTEGER } = range;
  return (value: string): number => {
    const parsed = Number(value);
    const fits = integer ? Number.isInteger(parsed) : Number.isFinite(parsed);
    if (value.trim() !== "" && fits && parsed >= min && parsed <= max) return parsed;
    const kind = integer ? "an integer" : range.unit ? `a number of ${range.unit}` : "a number";
    const bounds = range.max === undefined ? `from ${min} and up` : `from ${min} to ${max}`;
    const note = range.note ? ` (${range.note})` : "";
    throw new InvalidArgumentError(
      `Expected ${flag} to be ${kind} ${bounds}${note}, got "${value}".`,
    );
  };
}

export type DeviceName = "cpu" | `cuda:${number}`;

/** Commander parser for `--device`: `cpu` or `cuda:<id>`. */
export function deviceName(value: string): DeviceName {
  if (value === "cpu" || /^cuda:\d+$/.test(value)) return value as DeviceName;
  throw new InvalidArgumentError(
    `Expected --device to be "cpu" or "cuda:<id>" (e.g. cuda:0), got "${value}".`,
  );
}

/** `--format` on every command that reads a dataset. */
export const FORMAT_OPTION = [
  "--format <format>",
  "dataset format: jsonl, csv, tsv or parquet (default: told by the file's bytes and name; gzip and zstd are always told by the bytes)",
  parseDatasetFormat,
] as const;

export function parseDatasetFormat(value: string): DatasetFormat {
  const format = datasetFormat(value);
  if (format !== undefined) return format;
  throw new InvalidArgumentError(
    `Expected --format to be one of ${DATASET_FORMATS.join(", ")}, got "${value}" (compression is told by the bytes: a .csv.gz is --format csv).`,
  );
}

/** How a command that takes a verifier model says what it may be. */
export const MODEL_SOURCE_HELP =
  "model folder, or Hugging Face id owner/name[@revision] (a branch, tag or commit sha; downloaded once into ASSAY_MODEL_CACHE)";
