import type { VerifierTokenizer } from "../model/tokenizer.js";
import { type PromptPiece, pieceText, plainText } from "../template/resolve-prompt.js";
import { countTokens, decodeHead, decodeTail } from "./count-tokens.js";
import type { OverflowPolicy, TruncationRecord } from "./truncation-record.js";

export interface FitOptions {
  maxLength: number;
  /** Tokens held back when cutting, for re-tokenization drift. */
  margin: number;
  policy: OverflowPolicy;
}

export type FitResult =
  | { ok: true; text: string; ids: number[]; record: TruncationRecord }
  | { ok: false; message: string; record: TruncationRecord };

interface Plan {
  questionKeep: number;
  answerKeep: number;
  included: Set<PromptPiece>;
}

/**
 * Fits a filled template into the window without ever cutting the assembled text
 * (DESIGN §4): if it fits it is returned untouched; otherwise the budget is planned before
 * assembling — fixed pieces and the answer first, then optional pieces by priority, the
 * question keeping its head — and re-tokenized until it fits.
 */
export function fitPrompt(
  tokenizer: VerifierTokenizer,
  pieces: PromptPiece[],
  options: FitOptions,
): FitResult {
  const plain = plainText(pieces);
  const plainIds = tokenizer.encode(plain, true);
  const base = {
    originalTokens: plainIds.length,
    slot: null,
    droppedSlots: [],
    policy: options.policy,
    unreliable: false,
    refused: false,
  };
  if (plainIds.length <= options.maxLength) {
    return {
      ok: true,
      text: plain,
      ids: plainIds,
      record: { ...base, truncated: false, keptTokens: plainIds.length, droppedTokens: 0 },
    };
  }
  const refuse = (message: string): FitResult => ({
    ok: false,
    message,
    record: {
      ...base,
      truncated: true,
      refused: true,
      keptTokens: 0,
      droppedTokens: plainIds.length,
    },
  });

  const question = pieces.find((p) => p.role === "question");
  const answer = pieces.find((p) => p.role === "answer");
  if (answer === undefined) return refuse("the template has no answer slot");
  const questionIds = question === undefined ? [] : tokenizer.encode(question.body, false);
  const answerIds = tokenizer.encode(answer.body, false);
  const fixed = fixedTokens(tokenizer, pieces);
  const available = options.maxLength - fixed - options.margin;
  if (available < 0) {
    const names = pieces.filter((p) => p.required && p.role === "slot").map((p) => `\`${p.name}\``);
    const what =
      names.length > 0 ? `template text and required slots ${names.join(", ")}` : "template text";
    return refuse(
      `the ${what} take ${fixed} tokens; with margin ${options.margin} they do not fit max_length ${options.maxLength}`,
    );
  }
  let plan: Plan;
  let unreliable = false;
  if (answerIds.length > available) {
    if (options.policy === "error") {
      return refuse(
        `the answer alone is ${answerIds.length} tokens; max_length ${options.maxLength} leaves ${available} after the template (${fixed}) and margin (${options.margin}); use overflow policy keep-answer-tail to score its tail`,
      );
    }
    unreliable = true;
    plan = { questionKeep: 0, answerKeep: available, included: new Set() };
  } else {
    plan = planBudget(tokenizer, pieces, available - answerIds.length, questionIds.length);
    plan.answerKeep = answerIds.length;
  }

  for (;;) {
    const text = assemble(tokenizer, pieces, plan, questionIds, answerIds);
    const ids = tokenizer.encode(text, true);
    const over = ids.length - options.maxLength;
    if (over <= 0) {
      const droppedSlots = pieces
        .filter((p) => p.role === "slot" && !p.required && !plan.included.has(p))
        .map((p) => p.name);
      const slot: TruncationRecord["slot"] =
        plan.answerKeep < answerIds.length
          ? "answer"
          : plan.questionKeep < questionIds.length
            ? "question"
            : null;
      const record: TruncationRecord = {
        ...base,
        truncated: true,
        keptTokens: ids.length,
        droppedTokens: plainIds.length - ids.length,
        slot,
        droppedSlots,
        unreliable,
      };
      return { ok: true, text, ids, record };
    }
    if (!shrink(plan, pieces, over, unreliable))
      return refuse(
        `the input does not fit max_length ${options.maxLength} even with the question emptied`,
      );
  }
}

/** Tokens that are always sent: special tokens, template text, required pieces, labels. */
function fixedTokens(tokenizer: VerifierTokenizer, pieces: readonly PromptPiece[]): number {
  let total = tokenizer.encode("", true).length;
  for (const piece of pieces) {
    if (piece.role === "question" || piece.role === "answer") {
      total += countTokens(tokenizer, piece.prefix) + countTokens(tokenizer, piece.suffix);
    } else if (piece.required) {
      total += countTokens(tokenizer, pieceText(piece));
    }
  }
  return total;
}

/** Optional pieces in decreasing priority (declared order breaks ties) share `budget`. */
function planBudget(
  tokenizer: VerifierTokenizer,
  pieces: readonly PromptPiece[],
  budget: number,
  questionLength: number,
): Plan {
  const optional = pieces
    .map((piece, index) => ({ piece, index }))
    .filter(({ piece }) => piece.role === "question" || (piece.role === "slot" && !piece.required))
    .sort((a, b) => b.piece.priority - a.piece.priority || a.index - b.index);
  const plan: Plan = { questionKeep: 0, answerKeep: 0, included: new Set() };
  let left = budget;
  for (const { piece } of optional) {
    if (piece.role === "question") {
      plan.questionKeep = Math.min(questionLength, left);
      left -= plan.questionKeep;
      continue;
    }
    const cost = countTokens(tokenizer, pieceText(piece));
    if (cost <= left) {
      plan.included.add(piece);
      left -= cost;
    }
  }
  return plan;
}

function assemble(
  tokenizer: VerifierTokenizer,
  pieces: readonly PromptPiece[],
  plan: Plan,
  questionIds: readonly number[],
  answerIds: readonly number[],
): string {
  let text = "";
  for (const piece of pieces) {
    if (piece.role === "question") {
      const body =
        plan.questionKeep >= questionIds.length
          ? piece.body
          : decodeHead(tokenizer, questionIds, plan.questionKeep);
      text += piece.prefix + body + piece.suffix;
    } else if (piece.role === "answer") {
      const body =
        plan.answerKeep >= answerIds.length
          ? piece.body
          : decodeTail(tokenizer, answerIds, plan.answerKeep);
      text += piece.prefix + body + piece.suffix;
    } else if (piece.required || plan.included.has(piece)) {
      text += pieceText(piece);
    }
  }
  return text;
}

/** One step toward fitting: shorten the question, then drop optional pieces, then (tail policy) the answer. */
function shrink(
  plan: Plan,
  pieces: readonly PromptPiece[],
  over: number,
  answerCut: boolean,
): boolean {
  const step = Math.max(over, 4);
  if (plan.questionKeep > 0) {
    plan.questionKeep = Math.max(0, plan.questionKeep - step);
    return true;
  }
  const lowest = pieces
    .filter((p) => plan.included.has(p))
    .sort((a, b) => a.priority - b.priority)
    .at(0);
  if (lowest !== undefined) {
    plan.included.delete(lowest);
    return true;
  }
  if (answerCut && plan.answerKeep > step) {
    plan.answerKeep -= step;
    return true;
  }
  return false;
}
