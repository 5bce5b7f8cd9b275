import type { PromptPiece } from "../template/resolve-prompt.js";

/**
 * The optional pieces (slots not marked required: the question, metadata) in the order the
 * fit leaves them out: lowest `priority` first; among equal priorities, the one declared
 * last goes first. Text, the answer, the criterion and required slots are never in it.
 */
export function dropOrder(pieces: readonly PromptPiece[]): PromptPiece[] {
  return pieces
    .map((piece, index) => ({ piece, index }))
    .filter(({ piece }) => !piece.required && (piece.role === "question" || piece.role === "slot"))
    .sort((a, b) => a.piece.priority - b.piece.priority || b.index - a.index)
    .map(({ piece }) => piece);
}
