export type OverflowPolicy = "error" | "keep-answer-tail";

/**
 * Where the cut slot was cut, in that slot's own text, so `assay show` can mark the spot:
 * the question keeps its first `keptChars` characters, the answer its last `keptChars`.
 */
export interface SlotCut {
  keptChars: number;
  /** The slot's tokens sent to the model and left out (the prompt's own counts include the rest). */
  keptTokens: number;
  droppedTokens: number;
}

/** What fitting did to one prompt; every call gets one, truncated or not. */
export interface TruncationRecord {
  truncated: boolean;
  /** Tokens of the plainly filled template. */
  originalTokens: number;
  /** Tokens actually sent to the model (0 when refused). */
  keptTokens: number;
  droppedTokens: number;
  /** The slot whose text was cut: `question` (head kept, or left out) or `answer` (tail kept). */
  slot: "question" | "answer" | null;
  /** Where in its text the `slot` was cut; null when no slot was cut. */
  slotCut: SlotCut | null;
  /** Optional pieces left out, by slot name, in drop order: always a prefix of that order. */
  droppedSlots: string[];
  policy: OverflowPolicy;
  /** The answer itself was cut (`keep-answer-tail`): treat the score as unreliable. */
  unreliable: boolean;
  /** The call was refused (answer or required pieces do not fit); no score. */
  refused: boolean;
}
