import type { VerifierTokenizer } from "../model/tokenizer.js";
import { type PromptPiece, pieceText } from "../template/resolve-prompt.js";
import { countTokens, decodeHead, decodeTail } from "./count-tokens.js";
import type { FitOptions } from "./fit.js";
import type { PromptFormat } from "./prompt-format.js";

/**
 * What the fit keeps: the first `dropped` pieces of the drop order are left out; when the
 * next one is the question it may keep only the head of its ids (`questionKeep`, null =
 * whole); every later piece is whole. `answerKeep` is the answer's tail (keep-answer-tail).
 */
export interface Plan {
  dropped: number;
  questionKeep: number | null;
  answerKeep: number | null;
}

/** The pieces and their token ids, fixed for one fit. */
export interface Parts {
  tokenizer: VerifierTokenizer;
  /** Renders and encodes the kept pieces (plain text, or the model's chat template). */
  format: PromptFormat;
  pieces: readonly PromptPiece[];
  order: readonly PromptPiece[];
  questionIds: () => number[];
  answerIds: () => number[];
}

/**
 * The plan from token counts: the shortest prefix of the drop order whose removal leaves
 * the rest (counted piece by piece) within the window; the question, if it is the next in
 * line, keeps as much of its head as fits. Re-tokenization then checks it.
 */
export function firstPlan(parts: Parts, options: FitOptions, plainLength: number): Plan {
  const { tokenizer, order } = parts;
  const costs = order.map((piece) =>
    piece.role === "question"
      ? labelTokens(tokenizer, piece) + parts.questionIds().length
      : countTokens(tokenizer, pieceText(piece)),
  );
  let rest = costs.reduce((a, b) => a + b, 0);
  // What the optional pieces may take: the window minus everything else.
  const room = options.maxLength - (plainLength - rest);
  for (const [index, piece] of order.entries()) {
    // Leaving out nothing is the plain filling, which does not fit.
    if (index > 0 && rest <= room) return { dropped: index, questionKeep: null, answerKeep: null };
    rest -= costs[index] ?? 0;
    if (piece.role !== "question") continue;
    const keep = room - rest - labelTokens(tokenizer, piece) - options.margin;
    if (keep > 0) {
      return {
        dropped: index,
        questionKeep: Math.min(keep, parts.questionIds().length),
        answerKeep: null,
      };
    }
  }
  return { dropped: order.length, questionKeep: null, answerKeep: null };
}

/**
 * One step toward fitting: cut the question further while it is the next in line, else
 * leave out the next piece of the drop order, else (keep-answer-tail) shorten the answer.
 * The plan with every optional piece left out and the answer as planned fits, so this ends.
 */
export function shrink(parts: Parts, plan: Plan, over: number): void {
  const step = Math.max(over, 4);
  const next = parts.order[plan.dropped];
  if (next?.role === "question") {
    const keep = (plan.questionKeep ?? parts.questionIds().length) - step;
    if (keep > 0) {
      plan.questionKeep = keep;
      return;
    }
    plan.questionKeep = null;
  }
  if (next !== undefined) {
    plan.dropped += 1;
    return;
  }
  if (plan.answerKeep !== null) {
    // By exactly the overflow: a larger step could skip the longest tail that fits.
    plan.answerKeep -= over;
    return;
  }
  throw new Error("unreachable: the prompt with every optional piece left out was measured to fit");
}

function labelTokens(tokenizer: VerifierTokenizer, piece: PromptPiece): number {
  return countTokens(tokenizer, piece.prefix) + countTokens(tokenizer, piece.suffix);
}

/**
 * The prompt text of a plan, rendered by the format. A piece left out writes neither its
 * prefix nor its suffix.
 */
export function assemble(parts: Parts, plan: Plan): string {
  const { tokenizer, pieces, order } = parts;
  const left = new Set(order.slice(0, plan.dropped));
  const cut = plan.questionKeep === null ? undefined : order[plan.dropped];
  const texts = pieces.map((piece): string | null => {
    if (left.has(piece)) return null;
    if (piece === cut && plan.questionKeep !== null) {
      const ids = parts.questionIds();
      const body =
        plan.questionKeep >= ids.length
          ? piece.body
          : decodeHead(tokenizer, ids, plan.questionKeep);
      // A question cut to nothing is left out, labels included.
      return body === "" ? null : piece.prefix + body + piece.suffix;
    }
    if (piece.role === "answer" && plan.answerKeep !== null) {
      return piece.prefix + answerTail(parts, plan.answerKeep) + piece.suffix;
    }
    return pieceText(piece);
  });
  return parts.format.render(pieces, texts);
}

/** The last `keep` tokens of the answer as text ("" when `keep` is 0 or cuts a character). */
export function answerTail(parts: Parts, keep: number): string {
  return decodeTail(parts.tokenizer, parts.answerIds(), keep);
}

export function encodedLength(parts: Parts, plan: Plan): number {
  return parts.format.encode(assemble(parts, plan)).length;
}

export function once<T>(compute: () => T): () => T {
  let value: { v: T } | undefined;
  return () => {
    value ??= { v: compute() };
    return value.v;
  };
}
