import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { toAsciiForms } from "../src/text/ascii-forms.js";
import { endOfLastMatch } from "../src/text/last-match.js";

// Text with markers in it now and then, in either case, among any characters.
const markerText = fc
  .array(
    fc.oneof(
      fc.string({ unit: "grapheme", maxLength: 6 }),
      fc.constantFrom("answer", "ANSWER:", "Answer", "answers", "ans", "\n"),
    ),
    { maxLength: 12 },
  )
  .map((pieces) => pieces.join(""));

describe("endOfLastMatch", () => {
  it("ends where matchAll's last match ends, for any text, and leaves the pattern reset", () => {
    fc.assert(
      fc.property(
        markerText,
        fc.constantFrom("answer", "ANSWER:", "ans"),
        fc.boolean(),
        (text, word, ignoreCase) => {
          const pattern = new RegExp(word, ignoreCase ? "gi" : "g");
          const last = [...text.matchAll(pattern)].at(-1);
          const expected = last === undefined ? undefined : last.index + last[0].length;
          expect(endOfLastMatch(pattern, text)).toBe(expected);
          expect(pattern.lastIndex).toBe(0);
          // Called again, as the next sample would: the same answer.
          expect(endOfLastMatch(pattern, text)).toBe(expected);
        },
      ),
      { numRuns: 500 },
    );
  });
});

describe("toAsciiForms", () => {
  it("returns ASCII text as it is", () => {
    fc.assert(
      fc.property(
        fc.string({ unit: fc.integer({ min: 0, max: 0x7f }).map((c) => String.fromCharCode(c)) }),
        (text) => {
          expect(toAsciiForms(text)).toBe(text);
        },
      ),
    );
  });

  it("leaves no fullwidth form and no digit other than ASCII's in any text", () => {
    const unit = fc.oneof(
      fc.string({ unit: "grapheme", minLength: 1, maxLength: 1 }),
      fc.constantFrom("１", "２", "，", "％", "٣", "३", "𝟑", "7", "a", "é"),
    );
    fc.assert(
      fc.property(fc.string({ unit }), (text) => {
        const ascii = toAsciiForms(text);
        expect(ascii).not.toMatch(/[\uff01-\uff5e]/u);
        expect(ascii).not.toMatch(/(?![0-9])\p{Nd}/u);
      }),
      { numRuns: 500 },
    );
  });
});
