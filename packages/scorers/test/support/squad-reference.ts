/**
 * A second, deliberately plain implementation of evaluate-v1.1.py (SQuAD v1.1), written
 * from the official algorithm one code point at a time and sharing no code with src/, so
 * property tests can hold the scorers to it:
 *
 *   normalize_answer(s) = white_space_fix(remove_articles(remove_punc(lower(s))))
 *     lower:           str.lower()
 *     remove_punc:     drop every character of string.punctuation (ASCII only)
 *     remove_articles: re.sub(r'\b(a|an|the)\b', ' ', text)  (Unicode \b, str pattern)
 *     white_space_fix: ' '.join(text.split())
 *   exact_match = normalize_answer(prediction) == normalize_answer(ground_truth)
 *   f1 = harmonic mean of token precision and recall over Counter(...) & Counter(...)
 */

/** Python's `string.punctuation`. */
const PUNCTUATION = new Set("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~");

/**
 * Python's `str.isspace()`: bidirectional class WS, B or S, or general category Zs. Listed
 * by code point from the Unicode data rather than with a regex class.
 */
const WHITESPACE = new Set([
  0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x1c, 0x1d, 0x1e, 0x1f, 0x20, 0x85, 0xa0, 0x1680, 0x2000, 0x2001,
  0x2002, 0x2003, 0x2004, 0x2005, 0x2006, 0x2007, 0x2008, 0x2009, 0x200a, 0x2028, 0x2029, 0x202f,
  0x205f, 0x3000,
]);

const CAPITAL_SIGMA = 0x3a3;
const ARTICLES = ["a", "an", "the"]; // the regex's alternation order

const LETTER = /^\p{L}$/u; // str.isalpha(): categories Lu, Ll, Lt, Lm, Lo
const NUMBER = /^\p{N}$/u; // str.isdecimal/isdigit/isnumeric: every Nd, Nl and No
const CASED = /^\p{Cased}$/u;
const CASE_IGNORABLE = /^\p{Case_Ignorable}$/u;

export function referenceNormalize(text: string): string {
  const lowered = pythonLower(Array.from(text));
  const withoutPunctuation = lowered.filter((ch) => !PUNCTUATION.has(ch));
  const withoutArticles = removeArticles(withoutPunctuation);
  return pythonSplit(withoutArticles).join(" ");
}

export function referenceTokens(text: string): string[] {
  return pythonSplit(Array.from(referenceNormalize(text)));
}

export function referenceExact(prediction: string, groundTruth: string): number {
  return referenceNormalize(prediction) === referenceNormalize(groundTruth) ? 1 : 0;
}

export function referenceF1(prediction: string, groundTruth: string): number {
  const predictionTokens = referenceTokens(prediction);
  const groundTruthTokens = referenceTokens(groundTruth);
  const truthCounts = countTokens(groundTruthTokens);
  let numSame = 0;
  for (const [token, count] of countTokens(predictionTokens)) {
    numSame += Math.min(count, truthCounts.get(token) ?? 0);
  }
  if (numSame === 0) return 0;
  const precision = (1.0 * numSame) / predictionTokens.length;
  const recall = (1.0 * numSame) / groundTruthTokens.length;
  return (2 * precision * recall) / (precision + recall);
}

/**
 * `str.lower()`: each code point's full lowercase mapping, except capital sigma, which
 * CPython lowers to final "ς" or "σ" by looking around it (unicodeobject.c,
 * handle_capital_sigma).
 */
function pythonLower(codePoints: string[]): string[] {
  return codePoints.flatMap((ch, i) => {
    if (ch.codePointAt(0) === CAPITAL_SIGMA) return isFinalSigma(codePoints, i) ? "ς" : "σ";
    // One code point alone: its context-free full mapping, which may be longer ("İ" gives
    // "i" + U+0307), so the result is split into code points again.
    return Array.from(ch.toLowerCase());
  });
}

/** \p{cased} \p{case-ignorable}* U+03A3 !( \p{case-ignorable}* \p{cased} ), as CPython scans it. */
function isFinalSigma(codePoints: string[], at: number): boolean {
  let before = at - 1;
  while (before >= 0 && isCaseIgnorable(codePoints[before])) before--;
  if (before < 0 || !isCased(codePoints[before])) return false;
  let after = at + 1;
  while (after < codePoints.length && isCaseIgnorable(codePoints[after])) after++;
  return after === codePoints.length || !isCased(codePoints[after]);
}

/** `re.sub(r'\b(a|an|the)\b', ' ', text)` as a left-to-right scan. */
function removeArticles(codePoints: string[]): string[] {
  const out: string[] = [];
  let i = 0;
  while (i < codePoints.length) {
    const length = articleLengthAt(codePoints, i);
    if (length === 0) {
      out.push(codePoints[i] as string);
      i++;
    } else {
      out.push(" ");
      i += length;
    }
  }
  return out;
}

function articleLengthAt(codePoints: string[], at: number): number {
  if (!isBoundary(codePoints, at)) return 0;
  for (const article of ARTICLES) {
    const fits = Array.from(article).every((ch, k) => codePoints[at + k] === ch);
    if (fits && isBoundary(codePoints, at + article.length)) return article.length;
  }
  return 0;
}

/** Python's `\b`: a word character on exactly one side (the string's ends count as non-word). */
function isBoundary(codePoints: string[], at: number): boolean {
  return isWordCharacter(codePoints[at - 1]) !== isWordCharacter(codePoints[at]);
}

/** Python 3 `\w` for str patterns: `str.isalnum()` or the underscore. */
function isWordCharacter(ch: string | undefined): boolean {
  if (ch === undefined) return false;
  return ch === "_" || LETTER.test(ch) || NUMBER.test(ch);
}

/** `str.split()` with no argument: runs of whitespace separate, no empty tokens. */
function pythonSplit(codePoints: string[]): string[] {
  const tokens: string[] = [];
  let current = "";
  for (const ch of codePoints) {
    if (WHITESPACE.has(ch.codePointAt(0) ?? -1)) {
      if (current !== "") tokens.push(current);
      current = "";
    } else {
      current += ch;
    }
  }
  if (current !== "") tokens.push(current);
  return tokens;
}

function isCased(ch: string | undefined): boolean {
  return ch !== undefined && CASED.test(ch);
}

function isCaseIgnorable(ch: string | undefined): boolean {
  return ch !== undefined && CASE_IGNORABLE.test(ch);
}

function countTokens(tokens: string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const token of tokens) counts.set(token, (counts.get(token) ?? 0) + 1);
  return counts;
}
