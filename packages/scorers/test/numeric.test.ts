import fc from "fast-check";
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

  it.each([
    ["１２３", 123],
    ["合計：１，２３４．５", 1234.5],
    ["ｘ ＝ －４２", -42],
    ["٤٢", 42],
    ["१२३", 123],
    ["𝟒𝟐", 42],
    ["½", 0.5],
    ["2½", 2.5],
    ["-½", -0.5],
    ["\u22122¾", -2.75],
    ["It takes 2 ½ hours", 2.5],
    ["1,000¼", 1000.25],
    ["⅓", 1 / 3],
  ])(
    "reads fullwidth and other Unicode digits and vulgar fractions: %j is %d",
    async (answer, expected) => {
      expect(await score("numeric", {}, answer, expected)).toMatchObject({
        value: 1,
        detail: { parsed: expected },
      });
    },
  );

  it("reads a vulgar fraction in a target and keeps the unit after it", async () => {
    expect(await scoreValue("numeric", {}, "2.5", "2½")).toBe(1);
    expect(await score("numeric", { units: ["cups"] }, "Add 2½ cups", 2.5)).toMatchObject({
      value: 1,
      detail: { unit: "cups" },
    });
    expect(await score("numeric", { units: ["km"] }, "２０ｋｍ", 20)).toMatchObject({
      value: 1,
      detail: { unit: "km" },
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

describe("numeric, for any number", () => {
  const fullwidth = (text: string): string =>
    text.replace(/[!-~]/g, (ch) => String.fromCharCode(ch.charCodeAt(0) + 0xfee0));
  const finite = fc.double({ noNaN: true, noDefaultInfinity: true });

  it("reads back any finite number as JavaScript writes it, in ASCII or fullwidth", async () => {
    await fc.assert(
      fc.asyncProperty(finite, fc.boolean(), async (value, wide) => {
        const written = wide ? fullwidth(String(value)) : String(value);
        expect(await score("numeric", {}, `So it is ${written}.`, value)).toMatchObject({
          value: 1,
          detail: { parsed: value === 0 ? 0 : value },
        });
      }),
      { numRuns: 500 },
    );
  });

  it("reads digit groups in English and German style", async () => {
    const amount = fc.double({ min: -1e12, max: 1e12, noNaN: true });
    await fc.assert(
      fc.asyncProperty(amount, async (raw) => {
        const value = Math.round(raw * 100) / 100;
        const english = value.toLocaleString("en-US", { maximumFractionDigits: 2 });
        const german = value.toLocaleString("de-DE", { maximumFractionDigits: 2 });
        expect(await scoreValue("numeric", {}, `Total: ${english}`, value)).toBe(1);
        expect(
          await scoreValue("numeric", { thousands_separator: "." }, `Summe: ${german}`, value),
        ).toBe(1);
      }),
      { numRuns: 300 },
    );
  });

  it("reads a whole number followed by a vulgar fraction as their sum", async () => {
    const fractions = { "½": 1 / 2, "⅓": 1 / 3, "¾": 3 / 4, "⅛": 1 / 8, "⅒": 1 / 10 };
    await fc.assert(
      fc.asyncProperty(
        fc.nat(100_000),
        fc.constantFrom(...Object.entries(fractions)),
        fc.constantFrom("", " "),
        fc.boolean(),
        async (whole, [fraction, part], space, negative) => {
          const expected = (negative ? -1 : 1) * (whole + part);
          const answer = `${negative ? "-" : ""}${whole}${space}${fraction} cups`;
          expect(await score("numeric", {}, answer, expected)).toMatchObject({
            value: 1,
            detail: { parsed: expected, unit: "cups" },
          });
        },
      ),
      { numRuns: 300 },
    );
  });
});
