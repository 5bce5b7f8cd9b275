export type OverflowPolicy = "error" | "keep-answer-tail";

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
  /** Optional pieces left out, by slot name, in drop order: always a prefix of that order. */
  droppedSlots: string[];
  policy: OverflowPolicy;
  /** The answer itself was cut (`keep-answer-tail`): treat the score as unreliable. */
  unreliable: boolean;
  /** The call was refused (answer or required pieces do not fit); no score. */
  refused: boolean;
}
