import { toAsciiForms } from "./ascii-forms.js";

/** A number found in text, with the unit written next to it ("$", "%", "km"), if any. */
export interface FoundNumber {
  value: number;
  /** The number as read, with fullwidth forms and other digits written in ASCII. */
  text: string;
  unit: string | undefined;
}

const CURRENCY = "$€£¥";
/** The vulgar fraction characters and their values (Unicode's Numeric_Value). */
const FRACTIONS: Readonly<Record<string, number>> = {
  "½": 1 / 2,
  "⅓": 1 / 3,
  "⅔": 2 / 3,
  "¼": 1 / 4,
  "¾": 3 / 4,
  "⅕": 1 / 5,
  "⅖": 2 / 5,
  "⅗": 3 / 5,
  "⅘": 4 / 5,
  "⅙": 1 / 6,
  "⅚": 5 / 6,
  "⅐": 1 / 7,
  "⅛": 1 / 8,
  "⅜": 3 / 8,
  "⅝": 5 / 8,
  "⅞": 7 / 8,
  "⅑": 1 / 9,
  "⅒": 1 / 10,
  "↉": 0,
};
const FRACTION = `[${Object.keys(FRACTIONS).join("")}]`;
// Between a whole number and its fraction ("2 ½"): one space, no-break or thin space.
const MIXED_SPACE = "[ \\u00a0\\u2009\\u202f]?";
// Right after the number, one optional space, then "%" or a unit word ("km", "°C", "m²", "km/h").
const UNIT_AFTER = /[ \u00a0]?(%|°?\p{L}[\p{L}\p{N}/]*)/uy;

/**
 * Returns a function listing the numbers of a text, left to right. `thousandsSeparator`
 * groups digits by three ("1,234,567"); the decimal mark is "," when the separator is "."
 * (European style), else ".". An empty separator means digits are never grouped. Vulgar
 * fractions count alone or after a whole number ("½", "2½", "2 ½"), and fullwidth or other
 * Unicode digits count as their ASCII digits.
 */
export function numberFinder(thousandsSeparator: string): (text: string) => FoundNumber[] {
  const decimalMark = thousandsSeparator === "." ? "," : ".";
  const sep = escapeRegex(thousandsSeparator);
  const dec = escapeRegex(decimalMark);
  const integer = sep === "" ? "\\d+" : `\\d{1,3}(?:${sep}\\d{3})+|\\d+`;
  const mixed = `(?<whole>${integer})${MIXED_SPACE}(?<fraction>${FRACTION})`;
  const decimal = `(?<digits>(?:${integer})(?:${dec}\\d+)?|${dec}\\d+)(?:[eE](?<exponent>[-+]?\\d+))?`;
  // Not glued to a word or another number: "H2O" and "v2" hold no answer.
  const pattern = new RegExp(
    `(?<![\\p{L}\\p{N}_])(?<sign>[-+\u2212])?(?<currency>[${CURRENCY}])?(?:${mixed}|(?<lone>${FRACTION})|${decimal})(?!\\p{N})`,
    "gu",
  );
  const readGrouped = (digits: string): string => {
    const plain = thousandsSeparator === "" ? digits : digits.replaceAll(thousandsSeparator, "");
    return plain.replace(decimalMark, ".");
  };
  const magnitude = (groups: Record<string, string | undefined>): number => {
    const { whole, fraction, lone, digits = "", exponent } = groups;
    if (fraction !== undefined) return Number(readGrouped(whole ?? "")) + fractionValue(fraction);
    if (lone !== undefined) return fractionValue(lone);
    return Number(readGrouped(digits) + (exponent === undefined ? "" : `e${exponent}`));
  };

  return (original) => {
    const text = toAsciiForms(original);
    const found: FoundNumber[] = [];
    // `exec` from a reset `lastIndex`, not `matchAll`, which copies the pattern on every
    // call (~0.6 µs a call, most of what reading a short answer cost). No match is empty,
    // so each one moves the search on.
    pattern.lastIndex = 0;
    for (let match = pattern.exec(text); match !== null; match = pattern.exec(text)) {
      const groups = match.groups ?? {};
      const negative = groups.sign === "-" || groups.sign === "\u2212";
      const value = negative ? -magnitude(groups) : magnitude(groups);
      UNIT_AFTER.lastIndex = match.index + match[0].length;
      const unit = groups.currency ?? UNIT_AFTER.exec(text)?.[1];
      if (Number.isFinite(value)) found.push({ value, text: match[0], unit });
    }
    return found;
  };
}

function fractionValue(fraction: string): number {
  return FRACTIONS[fraction] ?? Number.NaN;
}

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
}
