/** A number found in text, with the unit written next to it ("$", "%", "km"), if any. */
export interface FoundNumber {
  value: number;
  text: string;
  unit: string | undefined;
}

const CURRENCY = "$€£¥";
// Right after the number, one optional space, then "%" or a unit word ("km", "°C", "m²", "km/h").
const UNIT_AFTER = /[ \u00a0]?(%|°?\p{L}[\p{L}\p{N}/]*)/uy;

/**
 * Returns a function listing the numbers of a text, left to right. `thousandsSeparator`
 * groups digits by three ("1,234,567"); the decimal mark is "," when the separator is "."
 * (European style), else ".". An empty separator means digits are never grouped.
 */
export function numberFinder(thousandsSeparator: string): (text: string) => FoundNumber[] {
  const decimalMark = thousandsSeparator === "." ? "," : ".";
  const sep = escapeRegex(thousandsSeparator);
  const dec = escapeRegex(decimalMark);
  const integer = sep === "" ? "\\d+" : `\\d{1,3}(?:${sep}\\d{3})+|\\d+`;
  // Not glued to a word or another number: "H2O" and "v2" hold no answer.
  const pattern = new RegExp(
    `(?<![\\p{L}\\p{N}_])([-+\u2212])?([${CURRENCY}])?((?:${integer})(?:${dec}\\d+)?|${dec}\\d+)(?:[eE]([-+]?\\d+))?(?!\\p{N})`,
    "gu",
  );
  return (text) => {
    const found: FoundNumber[] = [];
    for (const match of text.matchAll(pattern)) {
      const [whole, sign = "", currency, digits = "", exponent] = match;
      const grouped =
        thousandsSeparator === "" ? digits : digits.replaceAll(thousandsSeparator, "");
      const plain =
        grouped.replace(decimalMark, ".") + (exponent === undefined ? "" : `e${exponent}`);
      const value = sign === "-" || sign === "\u2212" ? -Number(plain) : Number(plain);
      UNIT_AFTER.lastIndex = match.index + whole.length;
      const unit = currency ?? UNIT_AFTER.exec(text)?.[1];
      if (Number.isFinite(value)) found.push({ value, text: whole, unit });
    }
    return found;
  };
}

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
}
