import { fillerText } from "@assay/model-tools";
import { tinyModel } from "@assay/test-support/tiny-models";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import {
  fitPrompt,
  loadTokenizer,
  type PromptPiece,
  plainText,
  resolvePrompt,
  type Template,
  type TemplatePiece,
  type VerifierTokenizer,
} from "../src/index.js";

// Qwen3's tokenizer as is (decoders), with an appended EOS, and wrapped as [CLS] $A [SEP]
// (encoders): the fit must hold whatever special tokens the tokenizer adds.
const TOKENIZERS = ["none", "eos", "cls-sep"] as const;
const tokenizers = new Map<string, VerifierTokenizer>();
beforeAll(async () => {
  for (const specialTokens of TOKENIZERS)
    tokenizers.set(specialTokens, await loadTokenizer(await tinyModel({ specialTokens })));
});

/** Template text, prefixes and suffixes: any characters, regex syntax and markers included. */
const label = fc.string({
  unit: fc.oneof(
    fc.string({ unit: "grapheme-ascii", minLength: 1, maxLength: 1 }),
    fc.string({ unit: "binary", minLength: 1, maxLength: 1 }),
    fc.constantFrom("\n", "-", "[", "]", "\\", "$", "(", ")", "*", "<|im_end|>", "中文", "🙂"),
  ),
  maxLength: 6,
});

const slotFields = {
  prefix: label,
  suffix: label,
  // Mostly optional: required pieces of up to 3× the window would mostly refuse the call.
  required: fc.oneof(
    { arbitrary: fc.constant(false), weight: 4 },
    { arbitrary: fc.constant(true), weight: 1 },
  ),
  priority: fc.integer({ min: 0, max: 3 }),
};

type Generated =
  | { kind: "text"; text: string }
  | {
      kind: "question" | "metadata";
      prefix: string;
      suffix: string;
      required: boolean;
      priority: number;
    };

const piece: fc.Arbitrary<Generated> = fc.oneof(
  fc.record({ kind: fc.constant("text" as const), text: label }),
  fc.record({ kind: fc.constant("question" as const), ...slotFields }),
  fc.record({ kind: fc.constant("metadata" as const), ...slotFields }),
);

/** 1–6 pieces: exactly one answer, at most one question, metadata slots named m0, m1, … */
const template: fc.Arbitrary<Template> = fc
  .tuple(fc.array(piece, { maxLength: 5 }), fc.record(slotFields), fc.nat())
  .map(([others, answer, at]) => {
    let question = false;
    const pieces: TemplatePiece[] = others.map((p, i) => {
      if (p.kind === "text") return { text: p.text };
      const { kind, ...fields } = p;
      const isQuestion = kind === "question" && !question;
      question ||= isQuestion;
      return { slot: isQuestion ? "question" : `m${i}`, ...fields };
    });
    pieces.splice(at % (pieces.length + 1), 0, { slot: "answer", ...answer });
    return pieces;
  });

/** A value of 0 to 3× the window in tokens (often short), with arbitrary characters at its end. */
const value = fc.record({
  share: fc.oneof(fc.integer({ min: 0, max: 40 }), fc.integer({ min: 0, max: 300 })),
  seed: fc.nat(40),
  tail: label,
});

const fitCase = fc.record({
  template,
  values: fc.array(value, { minLength: 7, maxLength: 7 }),
  maxLength: fc.integer({ min: 24, max: 320 }),
  margin: fc.integer({ min: 0, max: 8 }),
  policy: fc.constantFrom("error" as const, "keep-answer-tail" as const),
  tokenizer: fc.constantFrom(...TOKENIZERS),
});

/** The optional pieces in drop order, stated independently of the code: lowest priority
 * first, and among equal priorities the one declared last first. */
function expectedDropOrder(pieces: readonly PromptPiece[]): PromptPiece[] {
  return pieces
    .map((p, index) => ({ p, index }))
    .filter(({ p }) => !p.required)
    .sort((a, b) => a.p.priority - b.p.priority || b.index - a.index)
    .map(({ p }) => p);
}

const whole = (p: PromptPiece) => p.prefix + p.body + p.suffix;

describe("fit contract (properties, real tokenizers)", () => {
  it("never exceeds max_length, keeps required pieces and the answer whole, drops a prefix of the drop order, leaves fitting inputs untouched", () => {
    fc.assert(
      fc.property(fitCase, (c) => {
        const tok = tokenizers.get(c.tokenizer) as VerifierTokenizer;
        const texts = c.values.map(
          (v) => fillerText(tok, Math.floor((v.share * c.maxLength) / 100), v.seed) + v.tail,
        );
        const metadata = Object.fromEntries(texts.map((t, i) => [`m${i}`, t]));
        const prompt = resolvePrompt(
          c.template,
          { question: texts[5] ?? "", answer: texts[6] ?? "", metadata },
          "",
        );
        if (!prompt.ok) throw new Error(prompt.message);
        const { pieces } = prompt;
        const options = { maxLength: c.maxLength, margin: c.margin, policy: c.policy };
        const result = fitPrompt(tok, pieces, options);
        const plain = plainText(pieces);
        const plainIds = tok.encode(plain, true);
        const order = expectedDropOrder(pieces);
        const answer = pieces.find((p) => p.role === "answer") as PromptPiece;
        // Every optional piece left out, the answer whole: the smallest prompt with the answer.
        const minimal = tok.encode(
          pieces
            .filter((p) => !order.includes(p))
            .map(whole)
            .join(""),
          true,
        );

        if (plainIds.length <= c.maxLength) {
          // An input that fits is the plain filling, byte for byte and id for id.
          expect(result.ok && result.text).toBe(plain);
          expect(result.ok && result.ids).toEqual(plainIds);
          expect(result.record).toMatchObject({ truncated: false, droppedSlots: [], slot: null });
          return;
        }
        if (!result.ok) {
          // Refused only when the answer and required pieces cannot fit whole.
          expect(minimal.length).toBeGreaterThan(c.maxLength);
          expect(result.record).toMatchObject({ refused: true, keptTokens: 0 });
          return;
        }
        expect(result.ids.length).toBeLessThanOrEqual(c.maxLength);
        expect(result.ids).toEqual(tok.encode(result.text, true));
        expect(result.record).toMatchObject({ truncated: true, keptTokens: result.ids.length });

        // What is left out is a prefix of the drop order.
        const dropped = new Set(result.record.droppedSlots);
        const left = order.filter((p) => dropped.has(p.name));
        expect(order.slice(0, left.length)).toEqual(left);
        expect(result.record.droppedSlots).toHaveLength(left.length);

        // The answer is whole unless keep-answer-tail cut it and flagged the score.
        const answerCut = result.record.unreliable;
        expect(answerCut).toBe(result.record.slot === "answer");
        if (answerCut) {
          expect(c.policy).toBe("keep-answer-tail");
          expect(minimal.length).toBeGreaterThan(c.maxLength);
        }
        // The question may keep only its head, and only while it is the next in line.
        const question = pieces.find((p) => p.role === "question");
        const questionCut =
          !answerCut &&
          question !== undefined &&
          !dropped.has("question") &&
          order[left.length] === question &&
          result.record.slot === "question";

        // Rebuild the text from the claim: every other piece whole or absent, labels
        // with it; the one cut piece is prefix + (head or tail of its body) + suffix.
        const cut = answerCut ? answer : questionCut ? question : undefined;
        const kept = pieces.filter((p) => !left.includes(p));
        const index = cut === undefined ? kept.length : kept.indexOf(cut);
        const before = kept.slice(0, index).map(whole).join("");
        const after = kept
          .slice(index + 1)
          .map(whole)
          .join("");
        expect(result.text.startsWith(before)).toBe(true);
        expect(result.text.endsWith(after)).toBe(true);
        if (cut === undefined) {
          expect(result.text).toBe(before);
          return;
        }
        const middle = result.text.slice(before.length, result.text.length - after.length);
        expect(middle.startsWith(cut.prefix) && middle.endsWith(cut.suffix)).toBe(true);
        const body = middle.slice(cut.prefix.length, middle.length - cut.suffix.length);
        expect(body).not.toBe("");
        // A cut body is decoded from ids: compare with the tokenizer's (NFC) form of the text.
        const original = cut.body.normalize("NFC");
        expect(cut === answer ? original.endsWith(body) : original.startsWith(body)).toBe(true);
      }),
      { numRuns: 150 },
    );
  });
});
