import { fillerText } from "@assay/model-tools";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { decodeHead, decodeTail } from "../src/fit/count-tokens.js";
import {
  type AssayConfig,
  type ChatSpec,
  chatMessages,
  fitPrompt,
  loadTokenizer,
  type PromptPiece,
  readChatSpec,
  renderChat,
  resolvePrompt,
  type Template,
  type TemplatePiece,
  type VerifierTokenizer,
} from "../src/index.js";
import { CHAT_FAMILIES, type ChatFamilyName, chatFamilyDir } from "./chat-families.js";

// The fit contract across real chat templates (Qwen3, Llama 3, Gemma 3, as their tokenizer
// packages ship them, and Llama 3.2 Instruct's, whose system header carries the date): the wrapper's tokens count, the answer is never cut unless
// keep-answer-tail says so, required pieces enter whole, the drop order holds, and the
// prompt is the template rendered over the fitted pieces, ending where the assistant's
// first token goes.
const models = new Map<ChatFamilyName, { tokenizer: VerifierTokenizer; spec: ChatSpec }>();

beforeAll(async () => {
  for (const family of CHAT_FAMILIES) {
    const dir = await chatFamilyDir(family);
    const config = {
      template: [{ text: "x", message: "system" }, { slot: "answer" }],
    } as unknown as AssayConfig;
    const spec = await readChatSpec(dir, config);
    if (spec === null) throw new Error(`${family} ships no chat template`);
    models.set(family, { tokenizer: await loadTokenizer(dir), spec });
  }
}, 120_000);

const label = fc.string({
  unit: fc.oneof(
    fc.string({ unit: "grapheme-ascii", minLength: 1, maxLength: 1 }),
    fc.constantFrom("\n", " ", "[", "]", "\\", "$", "{{", "%}", "<|im_end|>", "中文", "🙂", "é"),
  ),
  maxLength: 6,
});
const message = fc.constantFrom("system" as const, "user" as const);
const slotFields = {
  prefix: label,
  suffix: label,
  required: fc.oneof(
    { arbitrary: fc.constant(false), weight: 4 },
    { arbitrary: fc.constant(true), weight: 1 },
  ),
  priority: fc.integer({ min: 0, max: 3 }),
  message,
};
const piece = fc.oneof(
  fc.record({ kind: fc.constant("text" as const), text: label, message }),
  fc.record({ kind: fc.constant("question" as const), ...slotFields }),
  fc.record({ kind: fc.constant("metadata" as const), ...slotFields }),
);

/** 1–6 pieces, each in the system or the user message; one answer, at most one question. */
const template: fc.Arbitrary<Template> = fc
  .tuple(fc.array(piece, { maxLength: 5 }), fc.record(slotFields), fc.nat())
  .map(([others, answer, at]) => {
    let question = false;
    const pieces: TemplatePiece[] = others.map((p, i) => {
      if (p.kind === "text") return { text: p.text, message: p.message };
      const { kind, ...fields } = p;
      const isQuestion = kind === "question" && !question;
      question ||= isQuestion;
      return { slot: isQuestion ? "question" : `m${i}`, ...fields };
    });
    pieces.splice(at % (pieces.length + 1), 0, { slot: "answer", ...answer });
    return pieces;
  });

const value = fc.record({
  share: fc.oneof(fc.integer({ min: 0, max: 40 }), fc.integer({ min: 0, max: 300 })),
  seed: fc.nat(40),
  tail: label,
});

const chatCase = fc.record({
  family: fc.constantFrom(...CHAT_FAMILIES),
  template,
  examples: fc.array(fc.record({ user: label, assistant: label }), { maxLength: 2 }),
  assistantPrefix: fc.constantFrom("", "Score:", "Verdict -"),
  values: fc.array(value, { minLength: 7, maxLength: 7 }),
  maxLength: fc.integer({ min: 40, max: 360 }),
  margin: fc.integer({ min: 0, max: 8 }),
  policy: fc.constantFrom("error" as const, "keep-answer-tail" as const),
});

function expectedDropOrder(pieces: readonly PromptPiece[]): PromptPiece[] {
  return pieces
    .map((p, index) => ({ p, index }))
    .filter(({ p }) => !p.required)
    .sort((a, b) => a.p.priority - b.p.priority || b.index - a.index)
    .map(({ p }) => p);
}

const whole = (p: PromptPiece) => p.prefix + p.body + p.suffix;

describe("fit contract across chat templates (properties, real templates and tokenizers)", () => {
  it("the fitted prompt is the template rendered over the fitted pieces, within the window, the answer whole, a prefix of the drop order left out, and it ends where the assistant's answer begins", () => {
    fc.assert(
      fc.property(chatCase, (c) => {
        const model = models.get(c.family);
        if (model === undefined) throw new Error("not loaded");
        const { tokenizer: tok } = model;
        const spec: ChatSpec = {
          ...model.spec,
          examples: c.examples,
          assistantPrefix: c.assistantPrefix,
          // Qwen3 judges answer without thinking: the generation prompt holds an empty block.
          options: c.family === "qwen3" ? { enable_thinking: false } : {},
        };
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
        const render = (kept: readonly (string | null)[]) =>
          renderChat(spec, chatMessages(spec, pieces, kept));
        const encode = (text: string) => tok.encode(text, false);
        const options = { maxLength: c.maxLength, margin: c.margin, policy: c.policy };
        const result = fitPrompt(tok, pieces, options, spec);
        const order = expectedDropOrder(pieces);
        const full = render(pieces.map(whole));
        const minimal = encode(render(pieces.map((p) => (order.includes(p) ? null : whole(p)))));

        if (encode(full).length <= c.maxLength) {
          expect(result.ok && result.text).toBe(full);
          expect(result.ok && result.ids).toEqual(encode(full));
          expect(result.record).toMatchObject({ truncated: false, droppedSlots: [] });
        } else if (!result.ok) {
          // Refused only when the wrapper, the text, the required pieces and the answer
          // cannot fit whole.
          expect(minimal.length).toBeGreaterThan(c.maxLength);
          expect(result.record).toMatchObject({ refused: true, keptTokens: 0 });
          return;
        }
        if (!result.ok) throw new Error(result.message);
        expect(result.ids.length).toBeLessThanOrEqual(c.maxLength);
        // Tokenized as rendered: the template wrote the special tokens, none are added.
        expect(result.ids).toEqual(encode(result.text));

        // What is left out is a prefix of the drop order.
        const dropped = new Set(result.record.droppedSlots);
        const left = order.filter((p) => dropped.has(p.name));
        expect(order.slice(0, left.length)).toEqual(left);
        const answerCut = result.record.slot === "answer";
        expect(result.record.unreliable).toBe(answerCut);
        if (answerCut) {
          expect(c.policy).toBe("keep-answer-tail");
          expect(minimal.length).toBeGreaterThan(c.maxLength);
        }
        // The template rendered over the pieces the record says were kept equals the prompt,
        // token for token.
        const kept = pieces.map((p): string | null => {
          if (left.includes(p)) return null;
          const cut = result.record.slotCut;
          if (p.role === "answer" && answerCut && cut !== null) {
            return p.prefix + decodeTail(tok, encode(p.body), cut.keptTokens) + p.suffix;
          }
          if (p.role === "question" && result.record.slot === "question" && cut !== null) {
            return p.prefix + decodeHead(tok, encode(p.body), cut.keptTokens) + p.suffix;
          }
          return whole(p);
        });
        expect(result.text).toBe(render(kept));

        // The score position: the conversation completed with the assistant's answer
        // begins with the prompt, so its last token is read where the answer's first goes.
        const completed = renderChat(
          spec,
          [
            ...chatMessages(spec, pieces, kept),
            { role: "assistant", content: `${c.assistantPrefix}Yes` },
          ],
          false,
        );
        expect(completed.startsWith(result.text)).toBe(true);
        if (c.assistantPrefix === "") {
          const ids = encode(completed);
          expect(ids.slice(0, result.ids.length)).toEqual(result.ids);
          expect(tok.tokenText(ids[result.ids.length] ?? -1)).toBe("Yes");
        }
      }),
      { numRuns: 150 },
    );
  }, 600_000);
});
