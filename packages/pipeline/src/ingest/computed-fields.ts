import {
  type CapturedField,
  DEFAULT_JOIN_SEPARATOR,
  describeValue,
  type JoinedField,
  type ParsedLine,
  parseFieldPath,
  printable,
} from "@assay/core/dataset-line";
import { compileSafeRegex } from "@assay/scorers/safe-regex";
import { type FieldSource, missing, quoteColumn, resolve } from "./field-resolve.js";

type Record_ = Record<string, unknown>;
/**
 * Reads one field of a record into `out`; returns a refusal when it cannot. `position` is
 * the record's place in its file, from 1, where the reader was given it.
 */
export type Reader = (record: Record_, out: Record_, position?: number) => ParsedLine | undefined;

export type BuiltReader =
  | { ok: true; sources: FieldSource[]; reader: Reader }
  | { ok: false; field: string; message: string };

/**
 * `question: { join: [context, question], separator }`: the text columns in the order
 * listed, with the separator between them. Each must hold text: a passage that is a
 * number or a list is more likely a wrong column than something to print.
 */
export function joinedReader(spec: JoinedField): BuiltReader {
  const parts: FieldSource[] = [];
  for (const [index, column] of spec.join.entries()) {
    const parsed = parseFieldPath(column);
    if (!parsed.ok) return { ok: false, field: `question.join[${index}]`, message: parsed.message };
    parts.push({ field: "question", column, steps: parsed.steps });
  }
  const separator = spec.separator ?? DEFAULT_JOIN_SEPARATOR;
  const reader: Reader = (record, out) => {
    const texts: string[] = [];
    for (const part of parts) {
      const found = resolve(record, part.steps);
      if (!found.ok) return missing("question", part, found);
      if (typeof found.value !== "string") {
        return refuse(
          "question",
          `column ${quoteColumn(part.column)} is ${describeValue(found.value)}, but the question joins text columns`,
        );
      }
      texts.push(found.value);
    }
    out.question = texts.join(separator);
    return undefined;
  };
  return { ok: true, sources: parts, reader };
}

/**
 * `target: { from: answer, pattern: "#### (-?[0-9.,]+)" }`: the first capture group of the
 * regex's first match in the column (the whole match when the regex has no group). The
 * regex runs on RE2, so no dataset value can make it take more than linear time.
 */
export function capturedReader(spec: CapturedField): BuiltReader {
  const parsed = parseFieldPath(spec.from);
  if (!parsed.ok) return { ok: false, field: "target.from", message: parsed.message };
  const compiled = compileSafeRegex(spec.pattern);
  if (!compiled.ok) return { ok: false, field: "target.pattern", message: compiled.message };
  const { regex, groups } = compiled;
  const from: FieldSource = { field: "target", column: spec.from, steps: parsed.steps };
  const pattern = printable(JSON.stringify(spec.pattern));
  const reader: Reader = (record, out) => {
    const found = resolve(record, from.steps);
    if (!found.ok) return missing("target", from, found);
    if (typeof found.value !== "string") {
      return refuse(
        "target",
        `column ${quoteColumn(from.column)} is ${describeValue(found.value)}, but the pattern ${pattern} reads text`,
      );
    }
    const match = regex.exec(found.value);
    const captured = match === null ? undefined : match[groups > 0 ? 1 : 0];
    if (captured === undefined) {
      return refuse(
        "target",
        `the pattern ${pattern} does not match column ${quoteColumn(from.column)} (${shownEnd(found.value)}); fix the pattern in the spec's fields.target, or the row`,
      );
    }
    out.target = captured;
    return undefined;
  };
  return { ok: true, sources: [from], reader };
}

/**
 * `id: { row: true }`: the record's position in its file as its id (text, as a number
 * column's id is), so data without ids still has one per row, the same on every resume.
 */
export const readRowId: Reader = (_record, out, position) => {
  if (position === undefined) {
    // Every dataset reader passes it; only a caller parsing a lone line does not.
    return refuse(
      "id",
      "the record's position is not known here, so `id: { row: true }` cannot read it",
    );
  }
  out.id = String(position);
  return undefined;
};

const SHOWN_CHARS = 40;

/** A text as a message shows it: its end, where worked solutions put the answer. */
function shownEnd(text: string): string {
  if (text.length <= SHOWN_CHARS) return describeValue(text);
  return `ending "…${printable(text.slice(-SHOWN_CHARS))}"`;
}

function refuse(field: string, message: string): ParsedLine {
  return { ok: false, field, message };
}
