import { paddedLength } from "./padded-length.js";

/**
 * Where each row of a padded batch is scored: its last text token, before the special tokens
 * the tokenizer appends to every row (`appendedTokens`, e.g. an EOS or SEP), and never
 * position −1 of a right-padded row. Every path that reads the score position — picking it
 * from a [batch, sequence, width] output, or feeding it to a prepared graph — goes through here.
 */
export function scorePositions(
  rows: readonly (readonly number[])[],
  paddingSide: "left" | "right",
  appendedTokens = 0,
): number[] {
  const length = paddedLength(rows);
  return rows.map((row) => {
    const start = paddingSide === "left" ? length - row.length : 0;
    return start + Math.max(0, row.length - 1 - appendedTokens);
  });
}
