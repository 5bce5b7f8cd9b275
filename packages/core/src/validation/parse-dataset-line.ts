/// <reference lib="es2024.string" />
import { type DatasetLine, DatasetLineSchema } from "../sample.js";
import { firstIssue, formatPath } from "../zod-issues.js";
import { withoutAbsentNulls } from "./absent-nulls.js";
import { describeValue, printable } from "./describe-value.js";
import { findDuplicateKey, hasDuplicateKeys } from "./duplicate-keys.js";
import { checkJsonValue } from "./json-walk.js";

export type ParsedLine =
  | { ok: true; line: DatasetLine }
  | { ok: false; field: string; message: string };

/**
 * Turns a parsed record written in a dataset's own field names into Assay's before it is
 * validated (the spec's `fields`), calling `validate` on the result; it may reword the
 * refusal to name the dataset's column too.
 */
export type RecordMapping = (
  record: Record<string, unknown>,
  validate: (record: Record<string, unknown>) => ParsedLine,
  position?: number,
) => ParsedLine;

/**
 * One line of a dataset file (its text, without the newline) as a validated DatasetLine,
 * or the field and a message saying what was expected. A line accepted here can be
 * stored as it is: every check Postgres would otherwise fail on is made first
 * (see `checkJsonValue`), and repeated keys, which JSON.parse silently collapses, are refused.
 * `position` is the record's place in its file, from 1, for a mapping that reads it.
 */
export function parseDatasetLine(
  text: string,
  options: LineParseOptions = {},
  position?: number,
): ParsedLine {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    // V8 quotes a piece of the line in its message: make that piece safe to store.
    const detail = printable(error instanceof Error ? error.message : String(error));
    return refuse("", `malformed JSON (${detail}); each line must be one complete JSON object`);
  }
  if (typeof json !== "object" || json === null || Array.isArray(json)) {
    return refuse("", `expected a JSON object, got ${describeValue(json)}`);
  }
  // Valid JSON text that is well-formed Unicode and has no `\u` escape cannot hold NUL
  // (a raw control character is a JSON syntax error) or a lone surrogate.
  const hasUnicodeEscapes = text.includes("\\u");
  const check = checkJsonValue(json, hasUnicodeEscapes || !text.isWellFormed());
  if (check.problem !== undefined) {
    return refuse(formatPath(check.problem.path), check.problem.message);
  }
  if (hasDuplicateKeys(text, json, check.keys, hasUnicodeEscapes)) {
    return refuse(
      formatPath(findDuplicateKey(text) ?? []),
      "this key appears twice in one object (JSON would keep only the last value); remove one",
    );
  }
  return mapped(json as Record<string, unknown>, options, recordValidator(options), position);
}

/** A record already parsed and checked as storable, validated as a dataset line. */
export function validateDatasetRecord(given: Record<string, unknown>): ParsedLine {
  const record = withoutAbsentNulls(given);
  const result = DatasetLineSchema.safeParse(record);
  if (!result.success) return { ok: false, ...firstIssue(result.error, record) };
  return { ok: true, line: result.data };
}

export interface LineParseOptions {
  /**
   * The line is a reference row whose answer is joined from batch outputs (`--answers`):
   * it must not carry `answer`, `candidates` or `generator`, which the join fills in.
   * Default false.
   */
  answersJoined?: boolean;
  /** The spec's `fields`, compiled: renames each record's fields before it is validated. */
  mapping?: RecordMapping;
}

/** The last step of reading a record: the zod schema, and what else the options ask. */
export type RecordValidator = (record: Record<string, unknown>) => ParsedLine;

/** How a record is validated under these options: as a whole line, or a reference row. */
export function recordValidator(options: LineParseOptions): RecordValidator {
  return options.answersJoined === true ? parseReferenceRow : validateDatasetRecord;
}

function mapped(
  record: Record<string, unknown>,
  options: LineParseOptions,
  validate: RecordValidator,
  position: number | undefined,
): ParsedLine {
  return options.mapping === undefined
    ? validate(record)
    : options.mapping(record, validate, position);
}

/** A reference row, validated as a dataset line with the answer still to be joined. */
function parseReferenceRow(row: Record<string, unknown>): ParsedLine {
  const json = withoutAbsentNulls(row);
  for (const field of JOINED_FIELDS) {
    if (Object.hasOwn(json, field)) {
      return refuse(
        field,
        `a reference row must not give \`${field}\`: it comes from the batch output (--answers); remove it${field === "answer" ? ", or, if it is the gold answer, map it (fields: { target: answer })" : ""}`,
      );
    }
  }
  const result = DatasetLineSchema.safeParse({ ...json, answer: "" });
  if (!result.success) return { ok: false, ...firstIssue(result.error, json) };
  return { ok: true, line: result.data };
}

const JOINED_FIELDS = ["answer", "candidates", "generator"] as const;

function refuse(field: string, message: string): ParsedLine {
  return { ok: false, field, message };
}

/**
 * A dataset record that is already a value (a CSV row or Parquet row made into an object)
 * as a validated DatasetLine, with the same checks and messages as a JSONL line after
 * its JSON is parsed. Its strings are checked for what Postgres refuses (NUL, lone
 * surrogates), since they never went through JSON.
 */
export function parseDatasetObject(
  value: unknown,
  options: LineParseOptions = {},
  validate: RecordValidator = recordValidator(options),
  position?: number,
): ParsedLine {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return refuse("", `expected an object, got ${describeValue(value)}`);
  }
  const check = checkJsonValue(value, true);
  if (check.problem !== undefined) {
    return refuse(formatPath(check.problem.path), check.problem.message);
  }
  return mapped(value as Record<string, unknown>, options, validate, position);
}
