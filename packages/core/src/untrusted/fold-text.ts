// Letters that render like Latin capitals: a candidate could spell "[ЕND DATA]" with a
// Cyrillic Е and a reader model would still see the delimiter.
const LOOKALIKES: Record<string, string> = {
  А: "A",
  В: "B",
  Е: "E",
  К: "K",
  М: "M",
  Н: "H",
  О: "O",
  Р: "P",
  С: "C",
  Т: "T",
  Х: "X",
  Ѕ: "S",
  І: "I",
  Ј: "J",
  Ԁ: "D",
  Α: "A",
  Β: "B",
  Ε: "E",
  Ζ: "Z",
  Η: "H",
  Ι: "I",
  Κ: "K",
  Μ: "M",
  Ν: "N",
  Ο: "O",
  Ρ: "P",
  Τ: "T",
  Υ: "Y",
  Χ: "X",
};

const MARKS = /\p{M}/gu;

/** Text folded for matching, with the original offset of every folded code unit. */
export interface FoldedText {
  text: string;
  /** `origin[i]` is where folded unit i came from; one extra entry holds the length. */
  origin: number[];
}

/**
 * Folds each character on its own (compatibility decomposition, accents dropped, upper
 * case, look-alike letters mapped), keeping a map back to the original so a match can be
 * replaced in place. Per character, because whole-string normalization loses positions.
 */
export function foldText(text: string): FoldedText {
  let folded = "";
  const origin: number[] = [];
  let offset = 0;
  for (const char of text) {
    const piece = foldChar(char);
    folded += piece;
    for (let i = 0; i < piece.length; i += 1) origin.push(offset);
    offset += char.length;
  }
  origin.push(offset);
  return { text: folded, origin };
}

export function foldChar(char: string): string {
  const base = char.normalize("NFKD").replace(MARKS, "").toUpperCase();
  return [...base].map((c) => LOOKALIKES[c] ?? c).join("");
}
