import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { score, scoreValue } from "./helpers.js";

describe("answer", () => {
  it("LETTER reads a lone letter after the marker", async () => {
    const args = { pattern: "LETTER" };
    expect(await scoreValue("answer", args, "Reasoning...\nANSWER: B", "B")).toBe(1);
    expect(await scoreValue("answer", args, "ANSWER: (c) because", "C")).toBe(1);
    expect(await scoreValue("answer", args, "ANSWER: A", "B")).toBe(0);
  });

  it("LETTER does not read the first letter of a word", async () => {
    expect(await score("answer", { pattern: "LETTER" }, "ANSWER: Because", "B")).toMatchObject({
      reason: "unparseable",
    });
  });

  it("uses the last marker, so a restated instruction does not count", async () => {
    const text = "Finish with ANSWER: X where X is a letter.\nANSWER: D";
    expect(await scoreValue("answer", { pattern: "LETTER" }, text, "D")).toBe(1);
  });

  it("WORD takes the next word without punctuation", async () => {
    expect(
      await scoreValue("answer", { pattern: "WORD" }, "answer: **Paris**, of course", "paris"),
    ).toBe(1);
  });

  it.each([
    ["ANSWER: Paris.", "Paris"],
    ["ANSWER: Paris, because it is the capital", "Paris"],
    ["ANSWER: **Paris** is the capital", "Paris"],
    ["ANSWER: Paris (France)", "Paris"],
    ["ANSWER: Paris\nIt is the capital.", "Paris"],
    ["ANSWER:\nNo", "No"],
  ])("WORD reads %j: one word, ended by punctuation or the line", async (answer, word) => {
    expect(await score("answer", { pattern: "WORD" }, answer, word)).toMatchObject({
      value: 1,
      detail: { extracted: word },
    });
  });

  it("WORD leaves several words unscored rather than taking the first", async () => {
    // "No idea" is not the answer "No", and "New York" is not "New".
    expect(await score("answer", { pattern: "WORD" }, "ANSWER: No idea", "No")).toEqual({
      status: "unscored",
      reason: "unparseable",
      message: 'expected one word after "ANSWER:", found several: "No idea"',
    });
    expect(await score("answer", { pattern: "WORD" }, "ANSWER: New York", "New")).toMatchObject({
      reason: "unparseable",
    });
  });

  it("WORD reads a word ended by punctuation or the line, and never the first of several", async () => {
    const word = fc.stringMatching(/^[A-Za-z]{1,10}$/);
    const ending = fc.constantFrom(".", ",", ";", "!", "?", ")", "**", "\n", "");
    const after = fc.string().filter((text) => !/answer/i.test(text));
    const nextWord = fc.stringMatching(/^[A-Za-z0-9]{1,8}$/);
    await fc.assert(
      fc.asyncProperty(word, ending, after, async (said, end, rest) => {
        const text = `ANSWER: ${said}${end}${end === "" ? "" : ` ${rest}`}`;
        expect(await score("answer", { pattern: "WORD" }, text, said)).toMatchObject({ value: 1 });
      }),
      { numRuns: 300 },
    );
    await fc.assert(
      fc.asyncProperty(word, nextWord, after, async (said, next, rest) => {
        const text = `ANSWER: ${said} ${next}${rest}`;
        expect(await score("answer", { pattern: "WORD" }, text, said)).toMatchObject({
          reason: "unparseable",
        });
      }),
      { numRuns: 300 },
    );
  });

  it("LINE takes the rest of the line", async () => {
    const text = "ANSWER: New York City.\nExplanation: big.";
    expect(await scoreValue("answer", { pattern: "LINE" }, text, "new york city")).toBe(1);
    expect(
      await scoreValue("answer", { pattern: "LINE" }, "ANSWER:\nNew York City", "New York City"),
    ).toBe(1);
  });

  it("supports a custom marker and case-sensitive comparison", async () => {
    const args = { pattern: "WORD", marker: "Final:", ignore_case: false };
    expect(await scoreValue("answer", args, "Final: Paris", "Paris")).toBe(1);
    expect(await scoreValue("answer", args, "Final: paris", "Paris")).toBe(0);
    expect(await score("answer", args, "final: Paris", "Paris")).toMatchObject({
      reason: "unparseable",
    });
  });

  it("leaves an answer without the marker, or with nothing after it, unscored", async () => {
    expect(await score("answer", { pattern: "LETTER" }, "I pick B", "B")).toMatchObject({
      status: "unscored",
      reason: "unparseable",
      message: 'no "ANSWER:" marker in the answer',
    });
    expect(await score("answer", { pattern: "LINE" }, "ANSWER:   ", "B")).toMatchObject({
      reason: "unparseable",
    });
  });
});
