import {
  DATASET_FORMATS,
  type DatasetFormat,
  DEFAULT_MAX_LINE_BYTES,
  datasetFormat,
} from "@assay/core/input-formats";
import { InvalidArgumentError } from "@commander-js/extra-typings";

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

/** Every parser made here, so a test can tell a flag parsed by them from one parsed ad hoc. */
const NUMBER_PARSERS = new WeakSet<object>();

/** Whether `parser` (an option's `parseArg`) is one of the number parsers of this module. */
export function isNumberParser(parser: unknown): boolean {
  return typeof parser === "function" && NUMBER_PARSERS.has(parser);
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

/**
 * Commander parser for a comma-separated list of whole numbers (`--lengths 500,2000`), each
 * 1 and up unless `range` says. `items` and `example` say what the list holds, e.g.
 * "GPU ids" and "0,1,2"; `distinct` keeps the first of repeated values.
 */
export function wholeNumberList(
  flag: string,
  list: Partial<NumberRange> & { items: string; example: string; distinct?: boolean },
) {
  const range = { min: 1, ...list };
  const each = numberParser(flag, range, true);
  const parse = (value: string): number[] => {
    try {
      const values = value.split(",").map((part) => each(part.trim()));
      return list.distinct ? [...new Set(values)] : values;
    } catch {
      throw new InvalidArgumentError(
        `Expected ${flag} to be ${list.items} like ${list.example} (integers ${bounds(range)}), got "${value}".`,
      );
    }
  };
  NUMBER_PARSERS.add(parse);
  return parse;
}

function numberParser(flag: string, range: NumberRange, integer: boolean) {
  const { min, max = Number.MAX_SAFE_INTEGER } = range;
  const parse = (value: string): number => {
    const parsed = Number(value);
    const fits = integer ? Number.isInteger(parsed) : Number.isFinite(parsed);
    // Number("") is 0: an empty value is refused here, not read as zero.
    if (value.trim() !== "" && fits && parsed >= min && parsed <= max) return parsed;
    const kind = integer ? "an integer" : range.unit ? `a number of ${range.unit}` : "a number";
    const note = range.note ? ` (${range.note})` : "";
    throw new InvalidArgumentError(
      `Expected ${flag} to be ${kind} ${bounds(range)}${note}, got "${value}".`,
    );
  };
  NUMBER_PARSERS.add(parse);
  return parse;
}

function bounds({ min, max }: NumberRange): string {
  return max === undefined ? `from ${min} and up` : `from ${min} to ${max}`;
}

export type DeviceName = "cpu" | `cuda:${number}`;

/** Commander parser for `--device`: `cpu` or `cuda:<id>`. */
export function deviceName(value: string): DeviceName {
  if (value === "cpu" || /^cuda:\d+$/.test(value)) return value as DeviceName;
  throw new InvalidArgumentError(
    `Expected --device to be "cpu" or "cuda:<id>" (e.g. cuda:0), got "${value}".`,
  );
}

/** `--max-line-bytes` on every command that reads a dataset (a resume must be given it again). */
export const MAX_LINE_BYTES_OPTION = [
  "--max-line-bytes <n>",
  "longest accepted line",
  positiveInt("--max-line-bytes"),
  DEFAULT_MAX_LINE_BYTES,
] as const;

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
