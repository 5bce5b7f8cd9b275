import { sample, tinyModel } from "@assay/test-support/tiny-models";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createVerifierScorer,
  loadModel,
  renderChat,
  resolvePrompt,
  scorePosition,
  type VerifierModel,
} from "../src/index.js";

// The whole path on a tiny model carrying Qwen3's real tokenizer and chat template:
// assay.json → chat rendering → fit → ONNX forward pass → score.
describe("chat models score through their own template", () => {
  let chat: VerifierModel;
  let base: VerifierModel;
  beforeAll(async () => {
    chat = await loadModel(await tinyModel({ chat: "qwen3", head: "distribution" }));
    base = await loadModel(await tinyModel({ head: "distribution" }));
  });
  afterAll(async () => {
    await chat.close();
    await base.close();
  });

  it("renders the prompt in the template, ending in the generation prompt with an empty thinking block and the assistant prefix", async () => {
    expect(chat.chat).not.toBeNull();
    expect(base.chat).toBeNull();
    const scorer = createVerifierScorer(chat, { model: chat.name });
    const result = await scorer(sample("What is 2 + 2?", "4, since 2 + 2 = 4."), {});
    expect(result.status).toBe("scored");
    const pieces = [
      "<|im_start|>system\nThe following is a problem and an answer to it.",
      "<|im_end|>\n<|im_start|>user\n",
      "<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\nScore:",
    ];
    const fit = await chat.fit(
      [
        {
          role: "text",
          name: "text",
          prefix: "",
          body: "The following is a problem and an answer to it.",
          suffix: "",
          required: true,
          priority: 0,
          message: "system",
        },
        {
          role: "answer",
          name: "answer",
          prefix: "",
          body: "4",
          suffix: "",
          required: true,
          priority: 0,
          message: "user",
        },
      ],
      { maxLength: 200, margin: 8, policy: "error" },
    );
    expect(fit.ok && fit.text).toBe(`${pieces[0]}${pieces[1]}4${pieces[2]}`);
    if (!fit.ok) return;
    // Encoded as is: the template wrote every special token, the tokenizer adds none.
    expect(fit.ids).toEqual(chat.tokenizer.encode(fit.text, false));
    // The score is read at the last token of the generation prompt.
    const completed = renderChat(
      chat.chat ?? (undefined as never),
      [
        { role: "system", content: "The following is a problem and an answer to it." },
        { role: "user", content: "4" },
        { role: "assistant", content: "Score: T" },
      ],
      false,
    );
    const completedIds = chat.tokenizer.encode(completed, false);
    const at = scorePosition({ ...chat.tokenizer, appendedTokens: 0 }, fit.ids);
    expect(completedIds.slice(0, at + 1)).toEqual(fit.ids);
    expect(chat.tokenizer.tokenText(completedIds[at + 1] ?? -1)).toBe(" T");
  });

  // Llama 3 and Gemma 3 (probe heads: their letters lie past the tiny logits) through
  // the same path; each template writes its BOS once, and the prompt ends in its
  // generation prompt.
  for (const [family, start, end] of [
    ["llama3", "<|begin_of_text|>", "<|start_header_id|>assistant<|end_header_id|>\n\n"],
    ["gemma3", "<bos>", "<start_of_turn>model\n"],
    ["llama3.2", "<|begin_of_text|>", "<|start_header_id|>assistant<|end_header_id|>\n\n"],
  ] as const) {
    it(`scores on a tiny ${family} chat model, the prompt in its template`, async () => {
      const model = await loadModel(await tinyModel({ chat: family }));
      try {
        const scorer = createVerifierScorer(model, { model: model.name });
        const result = await scorer(sample("What is 2 + 2?", "4"), {});
        const value = result.status === "scored" ? result.value : Number.NaN;
        expect(value).toBeGreaterThan(0);
        expect(value).toBeLessThan(1);
        // The day a Llama 3.2 header carries is recorded with the score; other templates write none.
        const detail = result.detail as { templateDate?: string };
        expect(detail.templateDate).toBe(family === "llama3.2" ? "2024-07-26" : undefined);
        const template = model.config.template;
        const prompt = resolvePrompt(template, { question: "Q", answer: "4", metadata: {} }, "");
        if (!prompt.ok) throw new Error(prompt.message);
        const fit = await model.fit(prompt.pieces, { maxLength: 512, margin: 8, policy: "error" });
        if (!fit.ok) throw new Error(fit.message);
        expect(fit.text.startsWith(start) && fit.text.endsWith(end)).toBe(true);
        expect(fit.ids.filter((id) => model.tokenizer.tokenText(id) === start)).toHaveLength(1);
        expect(fit.text.includes("\nToday Date: 26 Jul 2024\n\n")).toBe(family === "llama3.2");
      } finally {
        await model.close();
      }
    });
  }
});
