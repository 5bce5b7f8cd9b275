import { describe, expect, it } from "vitest";
import { score, scoreValue } from "./helpers.js";

describe("numeric", () => {
  it.each([
    ["The total is 1,234.5", 1234.5],
    ["It drops to -3.", -3],
    ["It costs $1,200", 1200],
    ["Growth was 45%", 45],
    ["Roughly 12 km", 12],
    ["1.5e3", 1500],
    ["about .5 of it", 0.5],
    ["from 10 to 20, so 15 is it", 15],
    ["x = \u22127", -7],
  ])("reads the last number of %j as %d", async (answer, expected) => {
    expect(await score("numeric", {}, answer, expected)).toMatchObject({
      value: 1,
      detail: { parsed: expected },
    });
  });

  it("does not read digits glued to letters", async () => {
    expect(await score("numeric", {}, "H2O", 2)).toMatchObject({ reason: "unparseable" });
  });

  it("accepts a numeric string target", async () => {
    expect(await scoreValue("numeric", {}, "1200", "$1,200.00")).toBe(1);
    expect(await score("numeric", {}, "1200", "lots")).toMatchObject({ reason: "invalid_target" });
  });

  it("skips blank entries of a list target, and refuses a list of nothing else", async () => {
    expect(await scoreValue("numeric", {}, "It is 42", ["", 41, "42"])).toBe(1);
    expect(await score("numeric", {}, "It is 42", ["", " "])).toMatchObject({
      reason: "invalid_target",
      message: "every entry of the target list is empty",
    });
  });

  it("applies absolute and relative tolerance", async () => {
    expect(await scoreValue("numeric", {}, "1.23", 1.2345)).toBe(0);
    expect(await scoreValue("numeric", { tolerance: 0.01 }, "1.23", 1.2345)).toBe(1);
    expect(await scoreValue("numeric", { relative_tolerance: 0.05 }, "104", 100)).toBe(1);
    expect(await scoreValue("numeric", { relative_tolerance: 0.05 }, "106", 100)).toBe(0);
  });

  it("reads European style when the separator is '.'", async () => {
    expect(await scoreValue("numeric", { thousands_separator: "." }, "1.234,5 €", 1234.5)).toBe(1);
  });

  it("with units, skips numbers carrying another unit", async () => {
    const args = { units: ["km"] };
    expect(await scoreValue("numeric", args, "12 km in 3 days", 12)).toBe(1);
    expect(await scoreValue("numeric", args, "It is 12.", 12)).toBe(1);
    expect(await score("numeric", args, "12 miles", 12)).toMatchObject({ reason: "unparseable" });
  });

  it("leaves an answer with no number unscored", async () => {
    expect(await score("numeric", {}, "I don't know", 3)).toMatchObject({
      status: "unscored",
      reason: "unparseable",
      message: "no number in the answer",
    });
  });

  it("reads a long list of comma-separated digits as separate numbers", async () => {
    const answer = `${"1,".repeat(20_000)}25`;
    expect(await score("numeric", {}, answer, 25)).toMatchObject({
      value: 1,
      detail: { parsed: 25 },
    });
  });

  it("groups digits only in threes", async () => {
    expect(await score("numeric", {}, "1,234,567", 1234567)).toMatchObject({ value: 1 });
    expect(await score("numeric", {}, "1,23", 23)).toMatchObject({ value: 1 });
  });
});
