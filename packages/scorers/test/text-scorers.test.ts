import { describe, expect, it } from "vitest";
import { score, scoreValue } from "./helpers.js";

describe("match", () => {
  it("looks at the end by default, ignoring case and edge punctuation", async () => {
    expect(await scoreValue("match", {}, "The capital is paris.", "Paris")).toBe(1);
    expect(await scoreValue("match", {}, "Paris is the capital", "Paris")).toBe(0);
  });

  it("supports begin, any and exact", async () => {
    expect(await scoreValue("match", { location: "begin" }, "Paris is the capital", "paris")).toBe(
      1,
    );
    expect(await scoreValue("match", { location: "any" }, "I think Paris, yes", "Paris")).toBe(1);
    expect(await scoreValue("match", { location: "exact" }, "Paris", "paris")).toBe(1);
    expect(await scoreValue("match", { location: "exact" }, "Paris, France", "Paris")).toBe(0);
  });

  it("can be case- and punctuation-sensitive", async () => {
    expect(await scoreValue("match", { ignore_case: false }, "it is paris", "Paris")).toBe(0);
    expect(await scoreValue("match", { ignore_punctuation: false }, "It is Paris.", "Paris")).toBe(
      0,
    );
  });

  it("takes the best over a list of targets and records which one matched", async () => {
    const result = await score("match", {}, "It is NYC", ["New York", "NYC"]);
    expect(result).toEqual({ status: "scored", value: 1, detail: { target: "NYC" } });
  });

  it("compares numbers and booleans as text", async () => {
    expect(await scoreValue("match", {}, "The answer is 42", 42)).toBe(1);
    expect(await scoreValue("match", {}, "that is true", true)).toBe(1);
  });

  it("refuses a missing, empty or object target instead of matching everything", async () => {
    expect(await score("match", {}, "anything")).toMatchObject({ reason: "invalid_target" });
    expect(await score("match", {}, "anything", "  ")).toMatchObject({ reason: "invalid_target" });
    expect(await score("match", {}, "anything", ["", " "])).toMatchObject({
      reason: "invalid_target",
      message: "every entry of the target list is empty",
    });
    expect(await score("match", {}, "anything", { a: 1 })).toMatchObject({
      reason: "invalid_target",
    });
    expect(await score("match", {}, "anything", [])).toMatchObject({ reason: "invalid_target" });
  });
});

describe("a list target with blank entries", () => {
  it.each([
    ["match", {}, "It is Paris"],
    ["includes", {}, "It is Paris"],
    ["pattern", { regex: "is (\\w+)" }, "It is Paris"],
    ["exact", {}, "Paris"],
    ["f1", {}, "Paris"],
    ["answer", { pattern: "WORD" }, "ANSWER: Paris"],
  ])("%s skips the blank entries and scores the others", async (name, args, answer) => {
    expect(await score(name, args, answer, ["", "Paris", "  "])).toMatchObject({
      status: "scored",
      value: 1,
      detail: { target: "Paris" },
    });
    expect(await scoreValue(name, args, answer, ["", "Rome"])).toBe(0);
  });
});

describe("includes", () => {
  it("finds the target anywhere, case-insensitively by default", async () => {
    expect(await scoreValue("includes", {}, "I believe PARIS is right", "paris")).toBe(1);
    expect(await scoreValue("includes", {}, "London", "paris")).toBe(0);
    expect(await scoreValue("includes", { ignore_case: false }, "PARIS", "paris")).toBe(0);
  });
});

describe("exact (SQuAD v1.1)", () => {
  it("matches the official example: articles and case do not matter", async () => {
    expect(await scoreValue("exact", {}, "The Denver Broncos", "Denver Broncos")).toBe(1);
    expect(await scoreValue("exact", {}, "denver broncos.", "Denver Broncos")).toBe(1);
    expect(await scoreValue("exact", {}, "Denver Broncos won", "Denver Broncos")).toBe(0);
  });

  it("takes the max over ground truths", async () => {
    expect(await scoreValue("exact", {}, "Broncos", ["Denver Broncos", "the Broncos"])).toBe(1);
  });

  it("gives 1 when answer and target both normalize to nothing (official semantics)", async () => {
    expect(await scoreValue("exact", {}, "", "The.")).toBe(1);
    expect(await scoreValue("exact", {}, "", "Denver")).toBe(0);
  });
});

describe("f1 (SQuAD v1.1)", () => {
  it("scores partial overlap: 2 of 3 predicted tokens, both target tokens", async () => {
    // p = 2/3, r = 2/2, F1 = 2pr/(p+r) = 0.8
    const result = await score("f1", {}, "Denver Broncos won", "The Denver Broncos");
    expect(result.status).toBe("scored");
    if (result.status !== "scored") return;
    expect(result.value).toBeCloseTo(0.8, 10);
    expect(result.detail?.precision).toBeCloseTo(2 / 3, 10);
    expect(result.detail?.recall).toBe(1);
  });

  it("ignores articles and punctuation when counting tokens", async () => {
    // answer tokens cat sat on mat; target cat on mat: p = 3/4, r = 1, F1 = 6/7
    expect(await scoreValue("f1", {}, "The cat sat on the mat.", "a cat on a mat")).toBeCloseTo(
      6 / 7,
      10,
    );
  });

  it("counts repeated tokens as a multiset", async () => {
    // answer cat cat; target cat: common 1, p = 1/2, r = 1, F1 = 2/3
    expect(await scoreValue("f1", {}, "cat cat", "cat")).toBeCloseTo(2 / 3, 10);
    // answer cat; target cat cat dog: common 1, p = 1, r = 1/3, F1 = 0.5
    expect(await scoreValue("f1", {}, "cat", "cat cat dog")).toBeCloseTo(0.5, 10);
  });

  it("takes the max over ground truths and reports that target", async () => {
    const result = await score("f1", {}, "Santa Clara", [
      "Levi's Stadium",
      "Santa Clara, California",
    ]);
    // p = 1, r = 2/3, F1 = 0.8
    expect(result).toMatchObject({
      value: expect.closeTo(0.8, 10),
      detail: { target: "Santa Clara, California" },
    });
  });

  it("gives 0 with no common token, also when both sides normalize to nothing", async () => {
    expect(await scoreValue("f1", {}, "London", "Paris")).toBe(0);
    expect(await scoreValue("f1", {}, "", "Paris")).toBe(0);
    expect(await scoreValue("f1", {}, "the", "The.")).toBe(0);
  });
});
