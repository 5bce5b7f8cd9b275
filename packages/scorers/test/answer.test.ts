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
