import { fillerText } from "@assay/model-tools";
import { tinyModel } from "@assay/test-support/tiny-models";
import { beforeAll, describe, expect, it } from "vitest";
import {
  type AssayConfigInput,
  fitPrompt,
  loadTokenizer,
  plainText,
  resolvePrompt,
  type Template,
  type VerifierTokenizer,
} from "../src/index.js";

let tok: VerifierTokenizer;
beforeAll(async () => {
  tok = await loadTokenizer(await tinyModel());
});

const seedTemplate: Template = [
  { text: "Decide whether the answer is correct.\n[Question]\n" },
  { slot: "question", prefix: "", suffix: "", required: false, priority: 0 },
  { text: "\n[Answer]\n" },
  { slot: "answer", prefix: "", suffix: "", required: false, priority: 0 },
  { text: "\nIs this answer correct?" },
];

function fit(
  template: Template,
  question: string,
  answer: string,
  maxLength: number,
  policy: "error" | "keep-answer-tail" = "error",
  metadata = {},
) {
  const prompt = resolvePrompt(template, { question, answer, metadata }, "");
  if (!prompt.ok) throw new Error(prompt.message);
  return {
    pieces: prompt.pieces,
    result: fitPrompt(tok, prompt.pieces, { maxLength, margin: 8, policy }),
  };
}

describe("fitPrompt", () => {
  it("leaves an input that fits untouched: same string, same ids as plain filling", () => {
    const { pieces, result } = fit(
      seedTemplate,
      "Which compound is released?",
      "C. Allomone",
      2048,
    );
    const plain = plainText(pieces);
    expect(result.ok && result.text).toBe(plain);
    expect(result.ok && result.ids).toEqual(tok.encode(plain, true));
    expect(result.record).toMatchObject({
      truncated: false,
      droppedTokens: 0,
      slot: null,
      refused: false,
    });
  });

  it("cuts only the question's tail, keeps its head, the answer and the final question", () => {
    const question = fillerText(tok, 5000);
    const { result } = fit(seedTemplate, question, "B. Pheromone", 2048);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.ids.length).toBeLessThanOrEqual(2048);
    expect(result.ids.length).toBeGreaterThan(2000);
    expect(result.text.endsWith("\n[Answer]\nB. Pheromone\nIs this answer correct?")).toBe(true);
    const kept = result.text.slice(
      result.text.indexOf("[Question]\n") + 11,
      result.text.indexOf("\n[Answer]"),
    );
    expect(question.startsWith(kept)).toBe(true);
    // Where the question was cut, in its own text and tokens, for `assay show` to mark.
    const questionTokens = tok.encode(question, false).length;
    expect(result.record.slotCut).toEqual({
      keptChars: kept.length,
      keptTokens: expect.any(Number),
      droppedTokens: expect.any(Number),
    });
    const cut = result.record.slotCut;
    expect((cut?.keptTokens ?? 0) + (cut?.droppedTokens ?? 0)).toBe(questionTokens);
    expect(cut?.droppedTokens).toBeGreaterThan(2900);
    expect(result.record).toMatchObject({
      truncated: true,
      slot: "question",
      policy: "error",
      unreliable: false,
    });
    expect(result.record.originalTokens - result.record.keptTokens).toBe(
      result.record.droppedTokens,
    );
  });

  it("refuses an answer that alone does not fit under the default policy", () => {
    const { result } = fit(seedTemplate, "Short question?", fillerText(tok, 3000), 2048);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.message).toMatch(/the answer alone is \d+ tokens/);
    expect(result.record).toMatchObject({ refused: true, keptTokens: 0, policy: "error" });
  });

  it("keeps the answer's tail, empties the question and flags it unreliable under keep-answer-tail", () => {
    const answer = fillerText(tok, 3000, 5);
    const { result } = fit(seedTemplate, "Short question?", answer, 2048, "keep-answer-tail");
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.ids.length).toBeLessThanOrEqual(2048);
    expect(result.record).toMatchObject({
      slot: "answer",
      unreliable: true,
      policy: "keep-answer-tail",
    });
    const keptAnswer = result.text.slice(
      result.text.indexOf("[Answer]\n") + 9,
      result.text.lastIndexOf("\nIs this"),
    );
    expect(answer.endsWith(keptAnswer)).toBe(true);
    expect(result.record.slotCut?.keptChars).toBe(keptAnswer.length);
    expect(result.text).toContain("[Question]\n\n[Answer]");
  });

  describe("priority slots", () => {
    const template: Template = [
      { text: "System: grade strictly.\n" },
      { slot: "examples", prefix: "[Examples]\n", suffix: "\n", required: false, priority: 1 },
      { slot: "options", prefix: "[Options]\n", suffix: "\n", required: false, priority: 3 },
      { slot: "question", prefix: "[Question]\n", suffix: "\n", required: false, priority: 2 },
      { slot: "rubric", prefix: "[Rubric]\n", suffix: "\n", required: true, priority: 0 },
      { slot: "answer", prefix: "[Answer]\n", suffix: "\n", required: false, priority: 0 },
      { text: "Correct?" },
    ];
    const metadata = (examples: number, rubric = 20) => ({
      examples: fillerText(tok, examples, 3),
      options: "A. Allomone B. Pheromone C. Kairomone",
      rubric: fillerText(tok, rubric, 9),
    });

    it("enters pieces whole by priority and drops the lowest first", () => {
      const { result } = fit(template, fillerText(tok, 400), "B", 300, "error", metadata(200));
      expect(result.ok).toBe(true);
      if (!result.ok) return;
      expect(result.record.droppedSlots).toEqual(["examples"]);
      expect(result.text).toContain("[Options]\nA. Allomone B. Pheromone C. Kairomone\n");
      expect(result.text).toContain("[Rubric]\n");
      expect(result.text).not.toContain("[Examples]");
      expect(result.record.slot).toBe("question");
    });

    it("keeps a lower-priority piece whole when it fits after the question", () => {
      const { result } = fit(template, "Which one?", "B", 300, "error", metadata(250));
      expect(result.ok && result.record.droppedSlots).toEqual(["examples"]);
      const small = fit(template, "Which one?", "B", 300, "error", metadata(30)).result;
      expect(small.ok && small.record.truncated).toBe(false);
    });

    it("refuses the call when a required piece cannot fit", () => {
      const { result } = fit(template, "Which one?", "B", 300, "error", metadata(10, 400));
      expect(result.ok).toBe(false);
      expect(!result.ok && result.message).toMatch(/required slots `rubric`/);
    });

    it("refuses when a required metadata slot is missing", () => {
      const prompt = resolvePrompt(template, { question: "q", answer: "a", metadata: {} }, "");
      expect(prompt.ok).toBe(false);
      expect(!prompt.ok && prompt.message).toContain("`rubric`");
    });
  });

  it("shrinks again when re-tokenization at the cut adds tokens", () => {
    // Text where token borders move when cut: digits and CJK mixed with words.
    const question = Array.from({ length: 3000 }, (_, i) =>
      i % 3 === 0 ? `${i}中文` : `word${i}`,
    ).join("");
    for (const max of [700, 1100, 1500]) {
      const { result } = fit(seedTemplate, question, "C. Allomone", max);
      expect(result.ok && result.ids.length <= max).toBe(true);
      expect(result.ok && result.text.includes("C. Allomone\nIs this answer correct?")).toBe(true);
    }
  });

  it("typechecks a config input shape", () => {
    const input: AssayConfigInput = {
      max_length: 10,
      template: [{ slot: "answer" }],
      head: { type: "probe", probe: [1] },
    };
    expect(input.max_length).toBe(10);
  });
});
