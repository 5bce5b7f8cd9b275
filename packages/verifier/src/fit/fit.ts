import type { ChatSpec } from "../chat/chat-template.js";
import type { VerifierTokenizer } from "../model/tokenizer.js";
import { type PromptPiece, pieceText } from "../template/resolve-prompt.js";
import { decodeHead } from "./count-tokens.js";
import { dropOrder } from "./drop-order.js";
import {
  answerTail,
  assemble,
  encodedLength,
  firstPlan,
  once,
  type Parts,
  type Plan,
  shrink,
} from "./fit-plan.js";
import { promptFormat } from "./prompt-format.js";
import type { OverflowPolicy, SlotCut, TruncationRecord } from "./truncation-record.js";

export interface FitOptions {
  maxLength: number;
  /** Tokens held back when cutting, for re-tokenization drift. */
  margin: number;
  policy: OverflowPolicy;
}

export type FitResult =
  | { ok: true; text: string; ids: number[]; record: TruncationRecord }
  | { ok: false; message: string; record: TruncationRecord };

/**
 * Fits a filled template into the window without ever cutting the assembled text
 * (docs/architecture.md, "Fit: never cut the answer"). An input that fits is returned
 * untouched. Otherwise text pieces, required pieces and the answer are kept whole, and optional pieces are left out in drop order
 * (lowest priority first): the question, when its turn comes, keeps its head; every other
 * piece is dropped whole. Whatever is left out is a prefix of that order. The text is
 * assembled, re-tokenized and shrunk until it fits.
 *
 * With `chat`, the kept pieces are rendered in the model's chat template and every token of
 * it (role headers, special tokens, the generation prompt) counts against the window; the
 * contract is the same, and the result equals the template rendered over the fitted pieces.
 */
export function fitPrompt(
  tokenizer: VerifierTokenizer,
  pieces: PromptPiece[],
  options: FitOptions,
  chat: ChatSpec | null = null,
): FitResult {
  const format = promptFormat(tokenizer, chat);
  const plain = format.render(pieces, pieces.map(pieceText));
  const plainIds = format.encode(plain);
  const base = {
    originalTokens: plainIds.length,
    slot: null,
    slotCut: null,
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

  // A pairwise template has no `answer` piece: its two answers are required slots, which
  // enter whole or refuse the call, so no policy can cut either.
  const answer = pieces.find((p) => p.role === "answer");
  const question = pieces.find((p) => p.role === "question");
  const parts: Parts = {
    tokenizer,
    format,
    pieces,
    order: dropOrder(pieces),
    questionIds: once(() => (question === undefined ? [] : tokenizer.encode(question.body, false))),
    answerIds: once(() => (answer === undefined ? [] : tokenizer.encode(answer.body, false))),
  };
  const everyOptionalDropped: Plan = {
    dropped: parts.order.length,
    questionKeep: null,
    answerKeep: null,
  };
  let plan: Plan;
  if (encodedLength(parts, everyOptionalDropped) <= options.maxLength) {
    plan = firstPlan(parts, options, plainIds.length);
  } else {
    const frame = encodedLength(parts, { ...everyOptionalDropped, answerKeep: 0 });
    if (frame > options.maxLength || answer === undefined) {
      return refuse(requiredMessage(pieces, frame, options));
    }
    const answerLength = parts.answerIds().length;
    if (options.policy === "error") {
      return refuse(
        `the answer alone is ${answerLength} tokens; max_length ${options.maxLength} leaves ${options.maxLength - frame} after the template and required pieces (${frame}); use overflow policy keep-answer-tail to score its tail`,
      );
    }
    // The margin absorbs re-tokenization at the cut, unless it would leave no room at all.
    const room = options.maxLength - frame;
    const answerKeep = room > options.margin ? room - options.margin : room;
    plan = { ...everyOptionalDropped, answerKeep: Math.min(answerLength - 1, answerKeep) };
  }

  for (;;) {
    if (plan.answerKeep !== null && answerTail(parts, plan.answerKeep) === "") {
      return refuse(
        `not one character of the answer fits max_length ${options.maxLength} after the template and required pieces`,
      );
    }
    const text = assemble(parts, plan);
    const ids = format.encode(text);
    const over = ids.length - options.maxLength;
    if (over <= 0) return { ok: true, text, ids, record: fittedRecord(parts, plan, ids, base) };
    shrink(parts, plan, over);
  }
}

function fittedRecord(
  parts: Parts,
  plan: Plan,
  ids: readonly number[],
  base: Omit<TruncationRecord, "truncated" | "keptTokens" | "droppedTokens">,
): TruncationRecord {
  const left = parts.order.slice(0, plan.dropped);
  const questionIds = parts.questionIds();
  const cutQuestion = plan.questionKeep !== null && plan.questionKeep < questionIds.length;
  const questionHead = cutQuestion
    ? decodeHead(parts.tokenizer, questionIds, plan.questionKeep ?? 0)
    : "";
  const questionEmptied = cutQuestion && questionHead === "";
  const droppedSlots = [...left.map((p) => p.name), ...(questionEmptied ? ["question"] : [])];
  const slot: TruncationRecord["slot"] =
    plan.answerKeep !== null
      ? "answer"
      : cutQuestion || left.some((p) => p.role === "question")
        ? "question"
        : null;
  const questionLeftOut = left.some((p) => p.role === "question") || questionEmptied;
  return {
    ...base,
    truncated: true,
    keptTokens: ids.length,
    droppedTokens: base.originalTokens - ids.length,
    slot,
    slotCut:
      slot === "answer"
        ? slotCut(answerTail(parts, plan.answerKeep ?? 0), plan.answerKeep ?? 0, parts.answerIds())
        : slot === "question"
          ? questionLeftOut
            ? slotCut("", 0, questionIds)
            : slotCut(questionHead, plan.questionKeep ?? 0, questionIds)
          : null,
    droppedSlots,
    unreliable: plan.answerKeep !== null,
  };
}

function slotCut(kept: string, keptTokens: number, ids: readonly number[]): SlotCut {
  return { keptChars: kept.length, keptTokens, droppedTokens: ids.length - keptTokens };
}

function requiredMessage(pieces: readonly PromptPiece[], tokens: number, options: FitOptions) {
  const names = pieces
    .filter((p) => p.required && (p.role === "slot" || p.role === "question"))
    .map((p) => `\`${p.name}\``);
  const what =
    names.length > 0 ? `template text and required slots ${names.join(", ")}` : "template text";
  const empty = pieces.some((p) => p.role === "answer") ? " (with an empty answer)" : "";
  return `the ${what} take ${tokens} tokens${empty}; they do not fit max_length ${options.maxLength}`;
}
