import { RE2 } from "re2-wasm";

/** Flags a user may pass; "u" is always added because re2-wasm only runs in unicode mode. */
const ALLOWED_FLAGS = new Set(["i", "m", "s", "u"]);

export type CompiledRegex =
  | { ok: true; regex: RE2; groups: number }
  | { ok: false; message: string };

/**
 * Compiles a user-supplied regex with RE2, whose matching time is linear in the input, so
 * an adversarial answer cannot hang a worker the way `^(a+)+$` hangs a backtracking engine.
 * The price is a few unsupported features; the message says which and why.
 */
export function compileSafeRegex(pattern: string, flags = ""): CompiledRegex {
  // re2-wasm never frees a compiled regex (no finalizer on the wasm object), and args are
  // parsed again at every spec check, so each distinct regex is compiled once per process.
  const key = `${flags}/${pattern}`;
  let compiled = compiledRegexes.get(key);
  if (compiled === undefined) {
    compiled = compile(pattern, flags);
    compiledRegexes.set(key, compiled);
  }
  return compiled;
}

const compiledRegexes = new Map<string, CompiledRegex>();

function compile(pattern: string, flags: string): CompiledRegex {
  const badFlag = [...flags].find((flag) => !ALLOWED_FLAGS.has(flag));
  if (badFlag !== undefined) {
    return {
      ok: false,
      message: `unsupported flag "${badFlag}"; use any of "i", "m", "s" (the scorer looks at the first match only)`,
    };
  }
  const unicodeFlags = flags.includes("u") ? flags : `${flags}u`;
  try {
    const regex = new RE2(pattern, unicodeFlags);
    return { ok: true, regex, groups: countGroups(pattern, unicodeFlags) };
  } catch (error) {
    return { ok: false, message: explain(pattern, error) };
  }
}

// `(?:P)|` always matches the empty string, and the match array has one slot per group.
function countGroups(pattern: string, flags: string): number {
  const match = new RE2(`(?:${pattern})|`, flags).exec("");
  return match === null ? 0 : match.length - 1;
}

function explain(pattern: string, error: unknown): string {
  const detail = error instanceof Error ? error.message : String(error);
  const why = "RE2 matches in linear time so that no answer can hang a worker";
  if (/\\[1-9]|\\k</.test(pattern)) {
    return `invalid regex: backreferences (\\1, \\k<name>) are not supported; ${why}, and backreferences need backtracking (${detail})`;
  }
  if (/\(\?<?[=!]/.test(pattern)) {
    return `invalid regex: lookahead and lookbehind are not supported; ${why} (${detail})`;
  }
  return `invalid regex: ${detail}`;
}
