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
}

export interface Sanitizer {
  /** The text with every look-alike of a delimiter replaced. */
  text(text: string): string;
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
  const text = (input: string): string => {
    let current = input;
    // Replacing can join the pieces around a match into a new delimiter
    // ("[END [END DATA] DATA]" is safe, but a crafted input may not be): repeat until clean.
    for (let pass = 0; pass < 10 && containsDelimiter(current); pass += 1) {
      current = replaceAll(current, pattern, replacement);
    }
    return current;
  };
  const containsDelimiter = (input: string): boolean => foldText(input).text.search(pattern) !== -1;
  const value = <T>(input: T): T => deepMapStrings(input, text) as T;
  return { text, value, containsDelimiter };
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
function replaceAll(input: string, pattern: RegExp, replacement: string): string {
  const folded = foldText(input);
  let output = "";
  let kept = 0;
  for (const match of folded.text.matchAll(pattern)) {
    const start = folded.origin[match.index] as number;
    const end = endOfChar(folded.origin, match.index + match[0].length - 1);
    if (start < kept) continue;
    output += input.slice(kept, start) + replacement;
    kept = end;
  }
  return output + input.slice(kept);
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
