import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { score, scoreValue } from "./helpers.js";

const choices = ["Paris", "London", "Rome", "Berlin"];
const meta = { choices };

describe("choice", () => {
  it.each([
    ["B"],
    ["(B)"],
    ["b."],
    ["B) London"],
    ["Answer: B"],
    ["The answer is (B)."],
    ["London"],
    ["**B**"],
    ["Let me think. A) Paris is in France...\nSo the answer is B"],
  ])("reads %j as option B", async (answer) => {
    expect(await scoreValue("choice", {}, answer, "B", meta)).toBe(1);
  });

  it.each([
    ["ANSWERS: B"],
    ["Answer(s): B"],
    ["Final answers: B"],
    ["Final Answer: B"],
    ["The answers are: (B)"],
    ["A) Paris\nB) London\nAnswers: B"],
  ])("reads the marker %j as a whole, not its last letter", async (answer) => {
    expect(await score("choice", {}, answer, "B", meta)).toMatchObject({
      value: 1,
      detail: { chosen: "B" },
    });
  });

  it("reads the letter after the last marker when the answer changes its mind", async () => {
    const answer = "The answer is A, I thought at first.\nOn reflection, the answer is (C).";
    expect(await score("choice", {}, answer, "C", meta)).toMatchObject({
      value: 1,
      detail: { chosen: "C" },
    });
  });

  it("reads the letter after any form of the marker, whatever text comes before", async () => {
    const marker = fc.constantFrom(
      "Answer:",
      "ANSWER:",
      "answers:",
      "Answer(s):",
      "ANSWER(S):",
      "Final answer:",
      "Final Answers:",
      "The answer is",
      "the answers are:",
      "My answer:",
    );
    const letterForms = [
      (letter: string) => letter,
      (letter: string) => `(${letter})`,
      (letter: string) => `**${letter}**`,
      (letter: string) => `${letter}.`,
    ];
    const form = fc.constantFrom(...letterForms);
    const before = fc.string().filter((text) => !/answer/i.test(text));
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: choices.length - 1 }),
        marker,
        form,
        before,
        async (index, said, write, text) => {
          const letter = String.fromCharCode(65 + index);
          const answer = `${text}\n${said} ${write(letter)}`;
          expect(await score("choice", {}, answer, index, meta)).toMatchObject({
            value: 1,
            detail: { chosen: letter },
          });
        },
      ),
      { numRuns: 300 },
    );
  });

  it("scores a different option 0 and records both letters", async () => {
    expect(await score("choice", {}, "C", "B", meta)).toEqual({
      status: "scored",
      value: 0,
      detail: { chosen: "C", expected: ["B"] },
    });
  });

  it("accepts the target as a letter, a 0-based index, option text, or a list", async () => {
    expect(await scoreValue("choice", {}, "B", 1, meta)).toBe(1);
    expect(await scoreValue("choice", {}, "B", "london", meta)).toBe(1);
    expect(await scoreValue("choice", {}, "C", ["B", "C"], meta)).toBe(1);
  });

  it("skips blank entries of a list target, and refuses a list of nothing else", async () => {
    expect(await scoreValue("choice", {}, "B", ["", "B"], meta)).toBe(1);
    expect(await scoreValue("choice", {}, "C", ["B", " "], meta)).toBe(0);
    expect(await score("choice", {}, "B", [""], meta)).toMatchObject({
      reason: "invalid_target",
      message: "every entry of the target list is empty",
    });
  });

  it("scores a clear letter outside the options as wrong", async () => {
    expect(await score("choice", {}, "E", "B", meta)).toMatchObject({
      value: 0,
      detail: { chosen: "E" },
    });
  });

  it("leaves ambiguous answers unscored", async () => {
    // The letter says B, the text says option A.
    expect(await score("choice", {}, "B) Paris", "B", meta)).toMatchObject({
      reason: "unparseable",
      message: "the answer could mean B or A",
    });
    expect(await score("choice", {}, "A and B", "B", meta)).toMatchObject({
      reason: "unparseable",
    });
    expect(await score("choice", {}, "I am not sure", "B", meta)).toMatchObject({
      reason: "unparseable",
    });
  });

  it("flags missing options and unusable targets", async () => {
    expect(await score("choice", {}, "B", "B")).toMatchObject({
      reason: "invalid_target",
      message: "metadata.choices must be a non-empty list of options",
    });
    expect(await score("choice", {}, "B", "F", meta)).toMatchObject({ reason: "invalid_target" });
    expect(await score("choice", {}, "B", 4, meta)).toMatchObject({ reason: "invalid_target" });
  });

  it("reads options from another metadata field", async () => {
    expect(
      await scoreValue("choice", { choices_field: "options" }, "A", "A", {
        options: ["yes", "no"],
      }),
    ).toBe(1);
  });
});

describe("choice with letter-like option texts", () => {
  it("reads a bare letter target and answer as positions, not as option text", async () => {
    const options = ["AB+", "O-", "A+", "B-"];
    expect(await scoreValue("choice", {}, "B", "B", { choices: options })).toBe(1);
    expect(await scoreValue("choice", {}, "D", "B", { choices: options })).toBe(0);
  });
});
