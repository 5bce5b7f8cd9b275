import { parseDatasetLine, type Sample, samplesFromLine } from "@assay/core";
import type { LineProblem, RawLine } from "./read-lines.js";

/**
 * What one dataset line became, as plain data (it crosses from a parse thread by
 * structured clone, which would drop an error's class): its samples, the field and
 * message that refuse it, or nothing for a blank line.
 */
export type LineOutcome =
  | { kind: "samples"; line: number; samples: Sample[] }
  | { kind: "refused"; line: number; field: string; message: string }
  | { kind: "blank"; line: number };

/** Parses and validates lines: the part of reading a dataset that runs in parallel. */
export function parseLines(lines: readonly RawLine[], maxLineBytes: number): LineOutcome[] {
  return lines.map((raw) => parseLine(raw, maxLineBytes));
}

function parseLine(raw: RawLine, maxLineBytes: number): LineOutcome {
  const line = raw.number;
  if ("problem" in raw) {
    return { kind: "refused", line, field: "", message: PROBLEMS[raw.problem](maxLineBytes) };
  }
  if (raw.text.trim() === "") return { kind: "blank", line };
  const parsed = parseDatasetLine(raw.text);
  if (!parsed.ok) return { kind: "refused", line, field: parsed.field, message: parsed.message };
  return { kind: "samples", line, samples: samplesFromLine(parsed.line, line) };
}

const PROBLEMS: Record<LineProblem, (maxLineBytes: number) => string> = {
  too_long: (max) => `line longer than ${max} bytes; shorten it or raise --max-line-bytes`,
  invalid_utf8: () => "invalid UTF-8; re-encode the file as UTF-8",
  stray_bom: () =>
    "byte-order mark (U+FEFF) at the start of a line past the first; were files concatenated? Remove it",
};
