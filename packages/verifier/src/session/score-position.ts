/**
 * Where each row of a padded batch is scored: its last real token (never position −1 of a
 * right-padded row). Every path that reads the score position — picking it from a
 * [batch, sequence, width] output, or feeding it to a prepared graph — goes through here.
 */
export function scorePositions(
  rows: readonly (readonly number[])[],
  paddingSide: "left" | "right",
): number[] {
  const length = Math.max(...rows.map((r) => r.length));
  return rows.map((row) => (paddingSide === "left" ? length - 1 : row.length - 1));
}
