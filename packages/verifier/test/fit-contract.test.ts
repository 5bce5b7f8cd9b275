import { fillerText } from "@assay/model-tools";
import { tinyModel } from "@assay/test-support/tiny-models";
import { beforeAll, describe, expect, it } from "vitest";
import {
  fitPrompt,
  loadTokenizer,
  resolvePrompt,
  type Template,
  type TemplatePiece,
  type VerifierTokenizer,
} from "../src/index.js";

let tok: VerifierTokenizer;
beforeAll(async () => {
  tok = await loadTokenizer(await tinyModel());
});

function slot(name: string, extra: Partial<TemplatePiece> = {}): TemplatePiece {
  return { slot: name, prefix: "", suffix: "", required: false, priority: 0, ...extra };
}

function fit(
  template: Template,
  input: { question: string; answer: string; metadata?: Record<string, unknown> },
  maxLength: number,
  policy: "error" | "keep-answer-tail" = "error",
) {
  const prompt = resolvePrompt(template, { metadata: {}, ...input }, "");
  if (!prompt.ok) throw new Error(prompt.message);
  return fitPrompt(tok, prompt.pieces, { maxLength, margin: 8, policy });
}

describe("fit contract", () => {
  describe("a required question", () => {
    const template: Template = [
      { text: "Grade the answer.\n[Question]\n" },
      slot("question", { required: true }),
      { text: "\n[Answer]\n" },
      slot("answer"),
      { text: "\nCorrect?" },
    ];

    it("that cannot fit whole refuses the call (overflow) instead of being cut", () => {
      const result = fit(template, { question: fillerText(tok, 3000), answer: "B" }, 600);
      expect(result.ok).toBe(false);
      expect(!result.ok && result.message).toMatch(/required slots `question`/);
      expect(result.record).toMatchObject({ refused: true, keptTokens: 0 });
    });

    it("that fits stays whole while optional pieces go", () => {
      const question = fillerText(tok, 300);
      const withNotes: Template = [
        slot("notes", { prefix: "[Notes]\n", suffix: "\n" }),
        ...template,
      ];
      const result = fit(
        withNotes,
        { question, answer: "B", metadata: { notes: fillerText(tok, 400, 2) } },
        600,
      );
      expect(result.ok && result.text).toContain(`[Question]\n${question}\n[Answer]`);
      expect(result.record.droppedSlots).toEqual(["notes"]);
      expect(result.record.slot).toBeNull();
    });
  });

  describe("drop order", () => {
    // options (priority 2) outranks notes (priority 1); the question outranks both.
    const template: Template = [
      { text: "Grade the answer.\n" },
      slot("options", { prefix: "[Options]\n", suffix: "\n", priority: 2 }),
      slot("notes", { prefix: "[Notes]\n", suffix: "\n", priority: 1 }),
      slot("question", { prefix: "[Question]\n", suffix: "\n", priority: 3 }),
      slot("answer", { prefix: "[Answer]\n", suffix: "\n" }),
      { text: "Correct?" },
    ];

    it("never keeps a lower-priority piece while a higher-priority one is dropped", () => {
      const metadata = { options: fillerText(tok, 1800, 1), notes: fillerText(tok, 120, 2) };
      const result = fit(template, { question: "Which one?", answer: "B", metadata }, 600);
      expect(result.ok).toBe(true);
      if (!result.ok) return;
      expect(result.record.droppedSlots).toEqual(["notes", "options"]);
      expect(result.text).not.toContain("[Notes]");
      expect(result.text).not.toContain("[Options]");
      expect(result.text).toContain("[Question]\nWhich one?\n[Answer]\nB\nCorrect?");
    });

    it("drops only the lowest-priority piece when that is enough", () => {
      const metadata = { options: fillerText(tok, 300, 1), notes: fillerText(tok, 400, 2) };
      const result = fit(template, { question: "Which one?", answer: "B", metadata }, 600);
      expect(result.ok && result.record.droppedSlots).toEqual(["notes"]);
      expect(result.ok && result.text).toContain(`[Options]\n${metadata.options}\n`);
    });

    it("breaks equal priorities by declaration: the piece declared last goes first", () => {
      const tied: Template = [
        slot("first", { prefix: "[First]\n" }),
        slot("second", { prefix: "[Second]\n" }),
        slot("answer"),
      ];
      const metadata = { first: fillerText(tok, 300, 1), second: fillerText(tok, 300, 2) };
      const result = fit(tied, { question: "", answer: "B", metadata }, 400);
      expect(result.ok && result.record.droppedSlots).toEqual(["second"]);
    });
  });

  describe("a question emptied by the fit", () => {
    const template: Template = [
      { text: "Grade.\n" },
      slot("question", { prefix: "[Q] ", suffix: " [/Q]\n" }),
      slot("answer", { prefix: "[A] ", suffix: " [/A]\n" }),
      { text: "Correct?" },
    ];

    it("writes neither its prefix nor its suffix (answer takes the window)", () => {
      const answer = fillerText(tok, 590, 4);
      const result = fit(template, { question: fillerText(tok, 500), answer }, 600);
      expect(result.ok).toBe(true);
      if (!result.ok) return;
      expect(result.text).toBe(`Grade.\n[A] ${answer} [/A]\nCorrect?`);
      expect(result.record).toMatchObject({ slot: "question", droppedSlots: ["question"] });
    });

    it("writes neither its prefix nor its suffix under keep-answer-tail", () => {
      const answer = fillerText(tok, 900, 4);
      const result = fit(
        template,
        { question: "Which compound?", answer },
        600,
        "keep-answer-tail",
      );
      expect(result.ok).toBe(true);
      if (!result.ok) return;
      expect(result.text).not.toContain("[Q]");
      expect(result.text).not.toContain("[/Q]");
      expect(result.text.startsWith("Grade.\n[A] ")).toBe(true);
      expect(result.record).toMatchObject({ slot: "answer", unreliable: true });
      expect(result.record.droppedSlots).toEqual(["question"]);
    });
  });
});
