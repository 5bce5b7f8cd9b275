import type { z } from "zod";
import { describeValue, printable } from "./validation/describe-value.js";

// A key that needs no quoting in a path: `metadata.kind`, not `metadata["a b"]`.
const PLAIN_KEY = /^[A-Za-z_$][\w$-]*$/;

/**
 * `a.b[2].c` for a zod issue path; "" for the root. A key with spaces, dots or unprintable
 * characters is written `["…"]` with escapes, so a path is always safe to show and store.
 */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const part of path) {
    if (typeof part === "number") out += `[${part}]`;
    else {
      const key = String(part);
      if (!PLAIN_KEY.test(key)) out += `[${printable(JSON.stringify(key))}]`;
      else out += out === "" ? key : `.${key}`;
    }
  }
  return out;
}

// A dataset line has a place for extra data; a configuration document does not.
const DATASET_UNKNOWN_FIELD_HINT = "put extra information under `metadata`";

/**
 * The first issue of a zod error as { field, message }, worded for a person. Given the
 * parsed input, type and range messages say what was expected and what was received
 * (`question must be a string, got a list`).
 */
export function firstIssue(
  error: z.ZodError,
  input?: unknown,
  unknownFieldHint = DATASET_UNKNOWN_FIELD_HINT,
): { field: string; message: string } {
  const issue = error.issues[0];
  if (issue === undefined) return { field: "", message: "invalid value" };
  const field = formatPath(issue.path);
  if (issue.code === "unrecognized_keys") {
    const keys = issue.keys.map((k) => `\`${printable(k)}\``).join(", ");
    const hint = unknownFieldHint === "" ? "" : `; ${unknownFieldHint}`;
    return { field, message: `unknown field ${keys}${hint}` };
  }
  if (input === undefined) return { field, message: issue.message };
  return { field, message: explain(issue, field, valueAt(input, issue.path)) };
}

function explain(issue: z.core.$ZodIssue, field: string, received: unknown): string {
  const got = describeValue(received);
  switch (issue.code) {
    case "invalid_type": {
      const expected = nameOfType(issue.expected);
      if (received === undefined) return `${field} is missing; expected ${expected}`;
      return `${field} must be ${expected}, got ${got}`;
    }
    case "too_small":
      if (issue.origin === "array") {
        return `${field} must hold at least ${issue.minimum} item${issue.minimum === 1 ? "" : "s"}, got ${got}`;
      }
      if (issue.origin === "string") {
        return issue.minimum === 1
          ? `${field} must not be empty`
          : `${field} must be at least ${issue.minimum} characters long`;
      }
      return `${field} must be at least ${issue.minimum}, got ${got}`;
    case "too_big":
      if (issue.origin === "array") return `${field} must hold at most ${issue.maximum} items`;
      if (issue.origin === "string") {
        return `${field} must be at most ${issue.maximum} characters long`;
      }
      return `${field} must be at most ${issue.maximum}, got ${got}`;
    case "invalid_value":
      return `${field} must be ${issue.values.map((v) => JSON.stringify(v)).join(" or ")}, got ${got}`;
    default:
      // Custom and union issues carry their own wording (see the schemas).
      return issue.message;
  }
}

function nameOfType(expected: string): string {
  switch (expected) {
    case "string":
      return "a string";
    case "number":
      return "a number";
    case "int":
      return "an integer";
    case "boolean":
      return "true or false";
    case "array":
      return "a list";
    case "object":
    case "record":
      return "an object";
    default:
      return expected;
  }
}

function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let value = root;
  for (const part of path) {
    if (typeof value !== "object" || value === null) return undefined;
    if (!Object.hasOwn(value, part)) return undefined;
    value = (value as Record<PropertyKey, unknown>)[part];
  }
  return value;
}
