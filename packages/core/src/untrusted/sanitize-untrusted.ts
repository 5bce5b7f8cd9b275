import { foldChar, foldText } from "./fold-text.js";

/** The delimiters of the default judge template (Inspect / OpenAI evals style). */
export const DEFAULT_DELIMITERS: readonly string[] = ["[BEGIN DATA]", "[END DATA]"];
/** What a neutralized delimiter becomes: readable, and matches no delimiter of its own. */
export const DEFAULT_REPLACEMENT = "[delimiter removed]";

export interface SanitizeOptions {
  /** Strings the template puts around untrusted text. Default `DEFAULT_DELIMITERS`. */
  delimiters?: readonly string[];
  /** Text put in place of each neutralized occurrence. Default `DEFAULT_REPLACEMENT`. */
  replacement?: string;
  /**
   * Break each occurrence instead of replacing it: this text goes in after the occurrence's
   * first character ("[END DATA]" becomes "[·END DATA]"), so the rest of the value keeps its
   * words. A visible character the matcher does not skip (not blank, not invisible). An
   * occurrence it cannot break (one character long, or one the break rebuilds) is replaced.
   */
  breakWith?: string;
}

/** A value after neutralizing, and how many occurrences were changed. */
export interface Neutralized {
  text: string;
  changes: number;
}

export interface Sanitizer {
  /** The text with every look-alike of a delimiter replaced (or broken, with `breakWith`). */
  text(text: string): string;
  /** As `text`, with the number of occurrences changed (0: the text is returned as is). */
  neutralize(text: string): Neutralized;
  /** A deep copy of JSON-like data (metadata) with every string and key sanitized. */
  value<T>(value: T): T;
  /** Whether the text holds something a reader could take for a delimiter. */
  containsDelimiter(text: string): boolean;
}

// Between two characters of a delimiter a faker may slip invisible or blank characters:
// zero-width and bidi controls (Cf), any Unicode space incl. NBSP, tabs and newlines.
const FILLER = "[\\p{Cf}\\s]*";

/**
 * Builds the matcher once per template. Matching is on folded text (case, width, accents
 * and look-alike letters ignored) and tolerates filler between characters, so
 * "[end\u00a0data]", "[END\u200bDATA]", "[END\nDATA]" and "［ＥＮＤ ＤＡＴＡ］" all count.
 */
export function createSanitizer(options: SanitizeOptions = {}): Sanitizer {
  const delimiters = options.delimiters ?? DEFAULT_DELIMITERS;
  const replacement = options.replacement ?? DEFAULT_REPLACEMENT;
  const pattern = delimiterPattern(delimiters);
  if (foldText(replacement).text.search(pattern) !== -1) {
    throw new RangeError(
      `Expected \`replacement\` to contain no delimiter, got \`${replacement}\` (it matches one of ${JSON.stringify(delimiters)})`,
    );
  }
  const breakWith = options.breakWith;
  if (breakWith !== undefined && !/^[^\p{Cf}\p{M}\s]+$/u.test(breakWith)) {
    throw new RangeError(
      `Expected \`breakWith\` to be visible characters the matcher does not skip, got ${JSON.stringify(breakWith)}`,
    );
  }
  const neutralize = (input: string): Neutralized => {
    let current = { text: input, changes: 0 };
    // Replacing can join the pieces around a match into a new delimiter
    // ("[END [END DATA] DATA]" is safe, but a crafted input may not be): repeat until clean.
    // Breaking gets a few passes, then whatever it could not break is replaced.
    for (let pass = 0; pass < 10 && containsDelimiter(current.text); pass += 1) {
      const broken = breakWith !== undefined && pass < 3;
      const next = changeAll(current.text, pattern, replacement, broken ? breakWith : undefined);
      current = { text: next.text, changes: current.changes + next.changes };
    }
    return current;
  };
  const text = (input: string): string => neutralize(input).text;
  const containsDelimiter = (input: string): boolean => foldText(input).text.search(pattern) !== -1;
  const value = <T>(input: T): T => deepMapStrings(input, text) as T;
  return { text, neutralize, value, containsDelimiter };
}

/** One-off form of `createSanitizer(options).text(text)`. */
export function sanitizeUntrusted(text: string, options: SanitizeOptions = {}): string {
  return createSanitizer(options).text(text);
}

function delimiterPattern(delimiters: readonly string[]): RegExp {
  if (delimiters.length === 0) {
    throw new RangeError("Expected `delimiters` to list at least one string, got an empty list");
  }
  const alternatives = delimiters.map((delimiter) => {
    const chars = [...delimiter].flatMap((c) => [...foldChar(c)]).filter((c) => !/\s/u.test(c));
    if (chars.length === 0) {
      throw new RangeError(
        `Expected each delimiter to have a visible character, got \`${delimiter}\``,
      );
    }
    return chars.map(escapeRegExp).join(FILLER);
  });
  // Longest first, so "[END DATA]" wins over a shorter delimiter that is its prefix.
  alternatives.sort((a, b) => b.length - a.length);
  return new RegExp(alternatives.join("|"), "gu");
}

// `search` and `matchAll` ignore and do not move `lastIndex`, so the shared global
// pattern carries no state between calls.
// A match of one original character cannot be broken inside: it is replaced.
function changeAll(
  input: string,
  pattern: RegExp,
  replacement: string,
  breakWith: string | undefined,
): Neutralized {
  const folded = foldText(input);
  let output = "";
  let kept = 0;
  let changes = 0;
  for (const match of folded.text.matchAll(pattern)) {
    const start = folded.origin[match.index] as number;
    const end = endOfChar(folded.origin, match.index + match[0].length - 1);
    if (start < kept) continue;
    const firstEnd = endOfChar(folded.origin, match.index);
    output +=
      breakWith !== undefined && firstEnd < end
        ? input.slice(kept, firstEnd) + breakWith + input.slice(firstEnd, end)
        : input.slice(kept, start) + replacement;
    kept = end;
    changes += 1;
  }
  return { text: output + input.slice(kept), changes };
}

/** End offset of the original character that folded unit `unit` came from. */
function endOfChar(origin: readonly number[], unit: number): number {
  const start = origin[unit] as number;
  let next = unit + 1;
  while ((origin[next] as number) === start) next += 1;
  return origin[next] as number;
}

function deepMapStrings(value: unknown, map: (text: string) => string): unknown {
  if (typeof value === "string") return map(value);
  if (Array.isArray(value)) return value.map((item) => deepMapStrings(item, map));
  if (typeof value === "object" && value !== null) {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [map(key), deepMapStrings(item, map)]),
    );
  }
  return value;
}

// Only the syntax characters: under the `u` flag any other escape (`\-`) is an error, so
// a template line like "Score (1-5):" would not compile.
function escapeRegExp(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|/]/g, "\\$&");
}
