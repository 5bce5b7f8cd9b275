import { z } from "zod";
import { describeValue, firstUnprintable } from "./describe-value.js";
import { MAX_ID_LENGTH } from "./limits.js";

/**
 * An `id` or `task_id`: a non-empty printable string of at most MAX_ID_LENGTH characters,
 * or a safe integer (stored as its decimal string). Ids end up in unique indexes, reports,
 * logs and CSV: a zero-width or bidi character would make two ids look alike, a newline
 * would break a row, and -0 would silently become "0".
 */
export function idField(name: string) {
  // A check that rewrites the value, not a transform: a transform makes a pipe, which cost
  // about a tenth of parsing a line. The type says string: a number is made one here.
  return z
    .custom<string>((value) => idProblem(name, value) === undefined, {
      error: (issue) => idProblem(name, issue.input),
    })
    .overwrite((value: string | number) => (typeof value === "number" ? String(value) : value));
}

export function idProblem(name: string, value: unknown): string | undefined {
  const expected = "a string or a safe integer";
  if (value === undefined) return `${name} is missing; expected ${expected}`;
  if (typeof value === "number") {
    if (Object.is(value, -0)) return `${name} must be ${expected}, got -0 (it would read as 0)`;
    if (Number.isSafeInteger(value)) return undefined;
    return `${name} must be ${expected}, got ${describeValue(value)}`;
  }
  if (typeof value !== "string") return `${name} must be ${expected}, got ${describeValue(value)}`;
  if (value === "") return `${name} must not be empty`;
  if (value.length > MAX_ID_LENGTH) {
    return `${name} must be at most ${MAX_ID_LENGTH} characters, got ${value.length}`;
  }
  const hidden = firstUnprintable(value);
  if (hidden !== undefined) {
    return `${name} must be printable, but has ${hidden.char} (a control, zero-width or bidi character) at index ${hidden.index}`;
  }
  return undefined;
}
