import fc from "fast-check";

/**
 * Characters on which Python (which the official SQuAD script runs on) and JavaScript
 * could read a text differently, by class, so generated texts visit every one of them.
 */
export const DISAGREEMENT_CLASSES = {
  /** In Python's str.split() but not in JavaScript's \s. */
  pythonOnlyWhitespace: ["\x1c", "\x1d", "\x1e", "\x1f", "\x85"],
  /** In JavaScript's \s but not in Python's str.split(). */
  javascriptOnlyWhitespace: ["\ufeff"],
  /** Whitespace to both. */
  sharedWhitespace: [
    " ",
    "\t",
    "\n",
    "\r",
    "\v",
    "\f",
    "\xa0",
    "\u1680",
    "\u2003",
    "\u2028",
    "\u3000",
  ],
  /** Format characters that look like spaces but are whitespace to neither. */
  invisibleNonWhitespace: ["\u200b", "\u180e", "\u2060", "\u200d"],
  /** string.punctuation, which the script removes. */
  asciiPunctuation: Array.from("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"),
  /** Unicode punctuation the script keeps (JavaScript's \p{P} would remove it). */
  unicodePunctuation: [
    "–",
    "—",
    "“",
    "”",
    "‘",
    "’",
    "¿",
    "¡",
    "«",
    "»",
    "。",
    "、",
    "·",
    "＂",
    "‿",
  ],
  /** Case mappings that differ from a simple one-to-one ASCII fold. */
  caseMapping: [
    "İ", // lowers to two code points, "i" + U+0307
    "Σ", // final sigma depends on its neighbours
    "ς",
    "ẞ",
    "ß",
    "Ǆ",
    "ǅ", // titlecase
    "K", // Kelvin sign lowers to ASCII "k"
    "Å", // Angstrom sign
    "ᾈ",
    "ʰ", // cased and case-ignorable at once
    "\u0345",
    "𐐀", // astral capital
    "Ａ",
  ],
  /** Word characters for Python's \b beyond ASCII: letters and every kind of number. */
  unicodeWordCharacters: ["é", "中", "ʰ", "٣", "𝟏", "²", "½", "Ⅻ", "〇", "𝐀"],
  /** Not word characters for Python's \b although they sit inside words. */
  unicodeNonWordCharacters: ["\u0301", "\u0307", "\u0903", "\u20dd", "😀", "\ud800", "\udc00"],
} as const;

const ARTICLES = ["a", "an", "the", "A", "An", "THE", "The", "ΤΗΕ"];
const PLAIN = Array.from("abcdehntxyz019_");

const piece = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...ARTICLES) },
  { weight: 4, arbitrary: fc.constantFrom(...PLAIN) },
  ...Object.values(DISAGREEMENT_CLASSES).map((characters) => ({
    weight: 2,
    arbitrary: fc.constantFrom(...characters),
  })),
  // Any code point at all, including unassigned ones and characters newer than Python's
  // Unicode database (the comparison with Python leaves those texts out).
  { weight: 1, arbitrary: fc.string({ unit: "binary", minLength: 1, maxLength: 1 }) },
);

/** A short text built from the pieces above. */
export const squadText = fc.array(piece, { maxLength: 12 }).map((pieces) => pieces.join(""));

/** A non-empty target (an empty one is refused before normalization). */
export const squadTarget = squadText.filter((text) => text.trim() !== "");

/**
 * Text of the kind most answers are: printable ASCII and Python's ASCII whitespace, which
 * normalization reads in one pass, with now and then a character that sends it back to the
 * general path (a control character, a non-ASCII letter, the Kelvin sign that lowers to
 * ASCII).
 */
export const asciiSquadText = fc
  .array(
    fc.oneof(
      { weight: 6, arbitrary: fc.constantFrom("a", "an", "the", "A", "An", "THE", "The") },
      { weight: 6, arbitrary: fc.constantFrom(...Array.from("abcdehntxyzABZ019")) },
      { weight: 4, arbitrary: fc.constantFrom(...DISAGREEMENT_CLASSES.asciiPunctuation) },
      { weight: 4, arbitrary: fc.constantFrom(" ", "\t", "\n", "\r", "\v", "\f", "\x1c", "\x1f") },
      { weight: 1, arbitrary: fc.constantFrom("\x00", "\x08", "\x1b", "\x7f", "é", "K", "İ") },
    ),
    { maxLength: 16 },
  )
  .map((pieces) => pieces.join(""));
