/// <reference lib="es2024.string" />
/** Python's `string.punctuation`, the ASCII set the official SQuAD script removes. */
const SQUAD_PUNCTUATION = /[!"#$%&'()*+,\-./:;<=>?@[\\\]^_`{|}~]/g;

/** The words SQuAD's `\b(a|an|the)\b` removes. */
const ARTICLES = ["a", "an", "the"];

// Python's `\b(a|an|the)\b` treats any Unicode letter or digit as a word character; JS's
// `\b` is ASCII-only, so "éthe" would lose its "the". Lookarounds keep Python's meaning.
const SQUAD_ARTICLES = new RegExp(
  `(?<![\\p{L}\\p{N}_])(?:${ARTICLES.join("|")})(?![\\p{L}\\p{N}_])`,
  "gu",
);

/**
 * Python's `str.split()` whitespace (`str.isspace`: bidirectional class WS, B or S, or
 * category Zs). It differs from JavaScript's `\s`: it includes the information separators
 * U+001C-U+001F and NEL U+0085, and not the byte order mark U+FEFF.
 */
const PYTHON_WHITESPACE_RUN =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: Python splits on U+001C-U+001F
  /[\t\n\v\f\r\x1c-\x20\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+/;

const EDGE_CHARACTER = /[\p{P}\s]/u;

/**
 * SQuAD v1.1 `normalize_answer`: lowercase, remove punctuation, remove the articles
 * a/an/the as whole words, collapse whitespace. Same order as evaluate-v1.1.py.
 * `toLowerCase` equals Python's `str.lower` (full mappings such as "İ" to "i̇", and the
 * final-sigma rule); checked against Python by the property tests.
 */
export function normalizeSquad(text: string): string {
  const lower = text.toLowerCase();
  return asciiSquadTokens(lower)?.join(" ") ?? normalizeLowered(lower);
}

/** The tokens SQuAD's F1 counts: the normalized text split on whitespace. */
export function squadTokens(text: string): string[] {
  const lower = text.toLowerCase();
  const tokens = asciiSquadTokens(lower);
  if (tokens !== undefined) return tokens;
  const normalized = normalizeLowered(lower);
  return normalized === "" ? [] : normalized.split(" ");
}

/** `normalizeSquad` of lowered text that the one-pass reading does not take. */
function normalizeLowered(lower: string): string {
  const withoutArticles = lower.isWellFormed()
    ? lower.replace(SQUAD_PUNCTUATION, "").replace(SQUAD_ARTICLES, " ")
    : codePointsWithoutPunctuationAndArticles(lower);
  return withoutArticles.split(PYTHON_WHITESPACE_RUN).filter(Boolean).join(" ");
}

const WORD_CHARACTER = /[\p{L}\p{N}_]/u;

/**
 * Punctuation and articles removed from lowered text that holds a lone surrogate (the line
 * checks refuse one, but a scorer may be handed any string). Python keeps each lone
 * surrogate a code point of its own, so removing the punctuation between a high and a low
 * one leaves two characters that are no word's, where a JavaScript string would join them
 * into one astral letter (a word character for the article rule). Worked on code points.
 */
function codePointsWithoutPunctuationAndArticles(lower: string): string {
  const kept = Array.from(lower).filter((char) => !isAsciiPunctuation(char.charCodeAt(0)));
  const isWord = (at: number): boolean =>
    at >= 0 && at < kept.length && WORD_CHARACTER.test(kept[at] as string);
  let out = "";
  for (let at = 0; at < kept.length; ) {
    const article = isWord(at - 1)
      ? undefined
      : ARTICLES.find(
          (word) => kept.slice(at, at + word.length).join("") === word && !isWord(at + word.length),
        );
    out += article === undefined ? kept[at] : " ";
    at += article === undefined ? 1 : article.length;
  }
  return out;
}

/**
 * `squadTokens` of lowered text in one pass, for the usual text: printable ASCII and Python's
 * ASCII whitespace only (anything else, undefined). There every character is a letter or digit
 * (kept, lowercased), punctuation (dropped without splitting the word) or whitespace (ends
 * a word), so a word is an article to SQuAD's `\b(a|an|the)\b` exactly when it is one
 * whole. Four regex passes and their strings per text made normalization most of what the
 * f1 scorer cost; the property tests hold this path to the reference on ASCII text.
 */
function asciiSquadTokens(lower: string): string[] | undefined {
  // Read lowered, as SQuAD lowers first: the Kelvin sign is a plain "k" by then, and the
  // length may differ from the original's. The callers lower it once for both paths.
  const tokens: string[] = [];
  /** The current word: its kept characters, or where it started while it has no punctuation. */
  let word = "";
  let start = -1;
  let punctuated = false;
  // One index past the end stands for a space that ends the last word: the word's end is
  // written once, without a closure per call.
  for (let index = 0; index <= lower.length; index += 1) {
    const code = index === lower.length ? 0x20 : lower.charCodeAt(index);
    if (isPythonAsciiSpace(code)) {
      if (start === -1) continue;
      const token = punctuated ? word : lower.slice(start, index);
      // ARTICLES spelled out: `ARTICLES.includes` per word made f1 ~8% slower.
      if (token !== "" && token !== "a" && token !== "an" && token !== "the") tokens.push(token);
      word = "";
      start = -1;
      punctuated = false;
    } else if (code < 0x21 || code > 0x7e) {
      return undefined;
    } else if (isAsciiPunctuation(code)) {
      if (start === -1) start = index;
      if (!punctuated) word = lower.slice(start, index);
      punctuated = true;
    } else {
      if (start === -1) start = index;
      if (punctuated) word += lower.charAt(index);
    }
  }
  return tokens;
}

/** Tab to carriage return, the information separators U+001C-U+001F, and space. */
function isPythonAsciiSpace(code: number): boolean {
  return (code >= 0x09 && code <= 0x0d) || (code >= 0x1c && code <= 0x20);
}

/** Python's `string.punctuation`: printable ASCII that is neither a letter nor a digit. */
function isAsciiPunctuation(code: number): boolean {
  return (
    (code >= 0x21 && code <= 0x2f) ||
    (code >= 0x3a && code <= 0x40) ||
    (code >= 0x5b && code <= 0x60) ||
    (code >= 0x7b && code <= 0x7e)
  );
}

/**
 * Light normalization for comparing an extracted answer with a target: trims punctuation
 * and whitespace at both ends ("Paris." equals "Paris"), collapses inner whitespace and
 * optionally folds case. Unlike SQuAD it keeps articles, so a captured "A" stays a letter.
 */
export function normalizeLoose(text: string, ignoreCase: boolean): string {
  const collapsed = collapseWhitespace(trimPunctuation(text));
  return ignoreCase ? collapsed.toLowerCase() : collapsed;
}

/**
 * Removes Unicode punctuation and whitespace at both ends. A loop, not a regex: an anchored
 * `[...]+$` rescans every run of punctuation from each start, quadratic on long answers.
 */
export function trimPunctuation(text: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && EDGE_CHARACTER.test(text.charAt(start))) start++;
  while (end > start && EDGE_CHARACTER.test(text.charAt(end - 1))) end--;
  return text.slice(start, end);
}

function collapseWhitespace(text: string): string {
  return text.split(/\s+/).filter(Boolean).join(" ");
}
