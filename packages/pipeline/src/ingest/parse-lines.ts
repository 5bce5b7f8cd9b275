import {
  type DatasetLine,
  type LineParseOptions,
  parseDatasetLine,
  parseDatasetObject,
  type RecordValidator,
  type Sample,
  samplesFromLine,
  TextParts,
} from "@assay/core/dataset-line";
import type { LineBytes } from "./read-line-batches.js";
import { eachLine, type LineProblem, type RawLine } from "./read-lines.js";

/**
 * What one dataset line became, as plain data (it crosses from a parse thread by
 * structured clone, which would drop an error's class): its samples, the field and
 * message that refuse it, or nothing for a blank line.
 */
export type LineOutcome =
  | { kind: "samples"; line: number; samples: Sample[] }
  | { kind: "refused"; line: number; field: string; message: string }
  | { kind: "blank"; line: number };

/** A line's outcome before its samples are made: a valid line as its validated record. */
type ParsedOutcome =
  | { kind: "line"; line: number; record: DatasetLine }
  | Exclude<LineOutcome, { kind: "samples" }>;

/**
 * One line as a parse thread sends it back (`parsedLinesJson`): a valid line as its
 * validated record, always a JSON object, whose samples the reading thread makes; any
 * other outcome as a list. The line's number is not sent: a batch's reply has one item per
 * line, in order. The thread sends JSON text: V8's structured clone took ~6 µs a line to
 * deserialize on the reading thread, which also scores and stores, where JSON.parse takes
 * ~2; and the samples made there share one line's metadata as they do when made where
 * the line was parsed. A record is JSON-safe: it was parsed from JSON and checked storable.
 */
type ReplyItem = DatasetLine | ["blank"] | ["refused", string, string];

/**
 * Splits, decodes, parses and validates a batch of lines: the part of reading a dataset
 * that runs in parallel. A line over `maxLineBytes` is refused without being decoded.
 * `options` may map fields (the spec's `fields`) or read reference rows (`--answers`).
 */
export function parseLineBytes(
  batch: LineBytes,
  maxLineBytes: number,
  options: LineParseOptions = {},
): LineOutcome[] {
  return eachLine(batch, maxLineBytes, (raw) => parseLine(raw, maxLineBytes, options));
}

/**
 * `parseLineBytes` as a parse thread sends it back: its lines as `ReplyItem`s in JSON arrays
 * of consecutive lines, each of about `TEXT_PART_CHARS`: one text for a batch (~1.3 × its
 * 128 KiB) was a large string three times over, in the thread that wrote it, in sending and
 * in the thread that got it. `outcomesOfReply` reads them back.
 * A valid line's record is written as the line's own text where validating it changed
 * nothing JSON keeps: no field mapping (`fields`), no reference row (`--answers`), no
 * per-sample `scorers` (their `args` default to {}) and no `null` (a null field is left
 * out); the rest of the schema only checks.
 * Serializing every record again was about a third of a parse thread's time.
 */
export function parsedLinesJson(
  batch: LineBytes,
  maxLineBytes: number,
  options: LineParseOptions = {},
): string[] {
  const verbatim = options.mapping === undefined && options.answersJoined !== true;
  const items = eachLine(batch, maxLineBytes, (raw) => {
    const outcome = parseLineRecord(raw, maxLineBytes, options);
    switch (outcome.kind) {
      case "blank":
        return BLANK_ITEM;
      case "refused":
        return JSON.stringify(["refused", outcome.field, outcome.message] satisfies ReplyItem);
      default:
        // A line that parsed has its text: only a line that could not be read has none.
        if (verbatim && outcome.record.scorers === undefined) {
          const { text } = raw as { text: string };
          // A null field was left out of the record (`withoutAbsentNulls`): not the text then.
          if (!text.includes("null")) return text;
        }
        return JSON.stringify(outcome.record satisfies ReplyItem);
    }
  });
  const parts = new TextParts((group) => `[${group.join(",")}]`);
  for (const item of items) parts.push(item);
  return parts.end();
}

const BLANK_ITEM = JSON.stringify(["blank"] satisfies ReplyItem);

/**
 * The outcomes a parse thread's reply stands for (see `parsedLinesJson`), the batch's lines
 * numbered from `firstLine`.
 */
export function outcomesOfReply(parts: readonly string[], firstLine: number): LineOutcome[] {
  const outcomes: LineOutcome[] = [];
  let line = firstLine;
  for (const part of parts) {
    for (const item of JSON.parse(part) as ReplyItem[]) {
      outcomes.push(outcomeOfItem(item, line));
      line += 1;
    }
  }
  return outcomes;
}

function outcomeOfItem(item: ReplyItem, line: number): LineOutcome {
  if (!Array.isArray(item)) return { kind: "samples", line, samples: samplesFromLine(item, line) };
  if (item[0] === "blank") return { kind: "blank", line };
  return { kind: "refused", line, field: item[1], message: item[2] };
}

/** One line, read or found unreadable, as its outcome. */
export function parseLine(
  raw: RawLine,
  maxLineBytes: number,
  options: LineParseOptions = {},
): LineOutcome {
  return withSamples(parseLineRecord(raw, maxLineBytes, options));
}

function parseLineRecord(
  raw: RawLine,
  maxLineBytes: number,
  options: LineParseOptions,
): ParsedOutcome {
  const line = raw.number;
  if ("problem" in raw) {
    return { kind: "refused", line, field: "", message: PROBLEMS[raw.problem](maxLineBytes) };
  }
  if (raw.text.trim() === "") return { kind: "blank", line };
  // A JSONL record's position is its line.
  const parsed = parseDatasetLine(raw.text, options, line);
  if (!parsed.ok) return { kind: "refused", line, field: parsed.field, message: parsed.message };
  return { kind: "line", line, record: parsed.line };
}

/** A parsed outcome with the samples of its line made. */
function withSamples(outcome: ParsedOutcome): LineOutcome {
  if (outcome.kind !== "line") return outcome;
  return {
    kind: "samples",
    line: outcome.line,
    samples: samplesFromLine(outcome.record, outcome.line),
  };
}

/**
 * A record another format already made into an object (a CSV or Parquet row), through
 * the same validation as a JSONL line's parsed JSON. `line` is the record's row number in
 * errors; `position` its place among the file's records, from 1 (`id: { row: true }`).
 * `options.mapping` (the spec's `fields`) renames its fields first; `validate` is the last
 * step, e.g. reading text cells as the fields they were mapped to (`cell-values.ts`).
 */
export function parseRecord(
  record: unknown,
  line: number,
  options: LineParseOptions = {},
  validate?: RecordValidator,
  position = line,
): LineOutcome {
  const parsed = parseDatasetObject(record, options, validate, position);
  if (!parsed.ok) return { kind: "refused", line, field: parsed.field, message: parsed.message };
  return { kind: "samples", line, samples: samplesFromLine(parsed.line, line) };
}

const PROBLEMS: Record<LineProblem, (maxLineBytes: number) => string> = {
  too_long: (max) => `line longer than ${max} bytes; shorten it or raise --max-line-bytes`,
  invalid_utf8: () => "invalid UTF-8; re-encode the file as UTF-8",
  stray_bom: () =>
    "byte-order mark (U+FEFF) at the start of a line past the first; were files concatenated? Remove it",
};
