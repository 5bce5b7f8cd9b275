/// <reference lib="es2024.string" />
import { MAX_NESTING_DEPTH } from "./limits.js";

/** Why a value cannot be stored as written, and where: the path from the line's root. */
export interface JsonProblem {
  path: PropertyKey[];
  message: string;
}

export interface JsonCheck {
  problem: JsonProblem | undefined;
  /** Object keys in the whole value, counted on the way (for the duplicate-key check). */
  keys: number;
}

const MAX_SAFE = Number.MAX_SAFE_INTEGER;

/**
 * One recursive walk over a parsed JSON value that stops at the first thing Postgres
 * `text` / `jsonb` could not hold as written, or that JavaScript would read differently:
 * NUL or an unpaired surrogate in any string or key, nesting deeper than
 * MAX_NESTING_DEPTH, a number that overflowed to Infinity or an integer past 2^53, a
 * `__proto__` key, a `constructor` key holding `prototype`.
 *
 * `checkStrings` false skips the per-string checks; the caller passes it when the line's
 * text shows that no string can hold NUL or a lone surrogate (no `\u` escape, and the text
 * itself well-formed), which is the common case and keeps the walk to a type switch per node.
 */
export function checkJsonValue(value: unknown, checkStrings: boolean): JsonCheck {
  const state = { keys: 0, checkStrings };
  const problem = walk(value, 1, state);
  return { problem, keys: state.keys };
}

interface WalkState {
  keys: number;
  checkStrings: boolean;
}

function walk(value: unknown, depth: number, state: WalkState): JsonProblem | undefined {
  if (typeof value === "string") return state.checkStrings ? stringProblem(value) : undefined;
  if (typeof value === "number") return numberProblem(value);
  if (typeof value !== "object" || value === null) return undefined;
  if (depth > MAX_NESTING_DEPTH) {
    return {
      path: [],
      message: `nested deeper than ${MAX_NESTING_DEPTH} levels (objects and lists inside each other); flatten it`,
    };
  }
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index += 1) {
      const problem = walk(value[index], depth + 1, state);
      if (problem !== undefined) {
        problem.path.unshift(index);
        return problem;
      }
    }
    return undefined;
  }
  const record = value as Record<string, unknown>;
  for (const key in record) {
    state.keys += 1;
    const child = record[key];
    const problem = keyProblem(key, child, state) ?? walk(child, depth + 1, state);
    if (problem !== undefined) {
      problem.path.unshift(key);
      return problem;
    }
  }
  return undefined;
}

function stringProblem(text: string): JsonProblem | undefined {
  if (text.indexOf("\u0000") !== -1) {
    return {
      path: [],
      message: "contains a NUL character (\\u0000), which Postgres cannot store; remove it",
    };
  }
  if (!text.isWellFormed()) {
    return {
      path: [],
      message:
        "contains an unpaired UTF-16 surrogate (a lone \\ud800-\\udfff escape), which is not valid Unicode; fix the escape",
    };
  }
  return undefined;
}

function keyProblem(key: string, child: unknown, state: WalkState): JsonProblem | undefined {
  if (key === "__proto__") {
    return {
      path: [],
      message:
        "the key `__proto__` is not allowed (JavaScript reads it as the object's prototype); rename it",
    };
  }
  if (
    key === "constructor" &&
    typeof child === "object" &&
    child !== null &&
    "prototype" in child
  ) {
    return {
      path: [],
      message:
        "a `constructor` key holding `prototype` is not allowed (a prototype-pollution pattern); rename it",
    };
  }
  if (!state.checkStrings) return undefined;
  const problem = stringProblem(key);
  if (problem !== undefined) problem.message = `this key ${problem.message}`;
  return problem;
}

function numberProblem(value: number): JsonProblem | undefined {
  // Only YAML can spell NaN (`.nan`); JSON text cannot.
  if (Number.isNaN(value)) {
    return { path: [], message: "NaN is not a number that can be stored; remove it" };
  }
  if (!Number.isFinite(value)) {
    return {
      path: [],
      message: "a number too large to read (it overflows to Infinity); write it as a string",
    };
  }
  if (Number.isInteger(value) && (value > MAX_SAFE || value < -MAX_SAFE)) {
    return {
      path: [],
      message: `the integer ${value} is beyond ±${MAX_SAFE} and cannot be read exactly; write it as a string`,
    };
  }
  return undefined;
}
