/// <reference lib="es2024.string" />
import { type DatasetLine, DatasetLineSchema } from "../sample.js";
import { firstIssue, formatPath } from "../zod-issues.js";
import { describeValue, printable } from "./describe-value.js";
import { findDuplicateKey, hasDuplicateKeys } from "./duplicate-keys.js";
import { checkJsonValue } from "./json-walk.js";

export type ParsedLine =
  | { ok: true; line: DatasetLine }
  | { ok: false; field: string; message: string };

/**
 * One line of a dataset file (its text, without the newline) as a validated DatasetLine,
 * or the field and a message saying what was expected. A line accepted here can be
 * stored as it is: every check Postgres would otherwise fail on is made first
 * (see `checkJsonValue`), and repeated keys, which JSON.parse silently collapses, are refused.
 */
export function parseDatasetLine(text: string): ParsedLine {
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
  const result = DatasetLineSchema.safeParse(json);
  if (!result.success) return { ok: false, ...firstIssue(result.error, json) };
  return { ok: true, line: result.data };
}

function refuse(field: string, message: string): ParsedLine {
  return { ok: false, field, message };
}

/**
 * A dataset record that is already a value (a CSV row or Parquet row made into an object)
 * as a validated DatasetLine, with the same checks and messages as a JSONL line after
 * its JSON is parsed. Its strings are checked for what Postgres refuses (NUL, lone
 * surrogates), since they never went through JSON.
 */
export function parseDatasetObject(value: unknown): ParsedLine {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return refuse("", `expected an object, got ${describeValue(value)}`);
  }
  const check = checkJsonValue(value, true);
  if (check.problem !== undefined) {
    return refuse(formatPath(check.problem.path), check.problem.message);
  }
  const result = DatasetLineSchema.safeParse(value);
  if (!result.success) return { ok: false, ...firstIssue(result.error, value) };
  return { ok: true, line: result.data };
}
