// Fullwidth forms of ASCII "!" to "~" (U+FF01-U+FF5E) and every Unicode decimal digit.
const NON_ASCII_FORM = /[\uff01-\uff5e]|\p{Nd}/gu;
const DECIMAL_DIGIT = /^\p{Nd}$/u;
const FULLWIDTH_OFFSET = 0xfee0;
// biome-ignore lint/suspicious/noControlCharactersInRegex: any character past ASCII
const BEYOND_ASCII = /[^\x00-\x7f]/;

/**
 * Rewrites number-bearing characters to ASCII so one pattern reads them all: fullwidth
 * "１２３，４％" becomes "123,4%", and any decimal digit ("٣", "३", "𝟑") its ASCII digit,
 * as Python's `float()` reads them.
 */
export function toAsciiForms(text: string): string {
  // ASCII text is its own ASCII form (its digits map to themselves): most answers are, and
  // the replacement below calls back for every digit.
  if (!BEYOND_ASCII.test(text)) return text;
  return text.replace(NON_ASCII_FORM, (ch) => {
    const codePoint = ch.codePointAt(0) ?? 0;
    if (codePoint >= 0xff01 && codePoint <= 0xff5e) {
      return String.fromCharCode(codePoint - FULLWIDTH_OFFSET);
    }
    return String(digitValue(codePoint));
  });
}

const digitValues = new Map<number, number>();

/**
 * Unicode assigns decimal digits only in runs of ten, 0 to 9 in order, and the runs that
 * touch each other are whole (the mathematical digits are five runs in a row), so a digit's
 * value is its distance from the start of its run, modulo 10.
 */
function digitValue(codePoint: number): number {
  let value = digitValues.get(codePoint);
  if (value === undefined) {
    let start = codePoint;
    while (DECIMAL_DIGIT.test(String.fromCodePoint(start - 1))) start--;
    value = (codePoint - start) % 10;
    digitValues.set(codePoint, value);
  }
  return value;
}
