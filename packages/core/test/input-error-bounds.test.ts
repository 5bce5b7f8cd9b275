import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { INPUT_ERROR_PART_MAX } from "../src/errors/input-error.js";
import { describeInputError, escapeTerminal, InputError } from "../src/index.js";

// One bad line of a dataset may be a megabyte; its error is shown, logged and stored once
// per line, so what the error quotes of it is bounded, and says how much it left out.

describe("an input error quoting a long line", () => {
  it("shows the start of a long message and how many characters it left out", () => {
    const message = `unexpected value ${"x".repeat(500_000)}`;
    const error = new InputError({ file: "big.jsonl", line: 7, field: "question", message });
    const kept = INPUT_ERROR_PART_MAX;
    expect(error.message).toBe(
      `big.jsonl:7: field \`question\`: ${message.slice(0, kept)}… (${message.length - kept} more characters)`,
    );
    // What is stored and logged (the reason) is cut alike, and cutting it again changes nothing.
    expect(error.reason).toBe(error.message.slice(error.message.indexOf("unexpected")));
    expect(
      describeInputError({ file: "big.jsonl", line: 7, field: "question", message: error.reason }),
    ).toBe(error.message);
  });

  it("is bounded for every message and field, and keeps short ones whole", () => {
    const bound = (text: string) => escapeTerminal(text).length;
    fc.assert(
      fc.property(
        fc.string({ maxLength: 3000, unit: "binary" }),
        fc.string({ maxLength: 1500 }),
        (message, field) => {
          const shown = describeInputError({ file: "d.jsonl", line: 1, field, message });
          // Each part at most its bound plus the cut note, each character escaped at most 6×.
          expect(shown.length).toBeLessThanOrEqual(30 + 2 * 6 * (INPUT_ERROR_PART_MAX + 40));
          if (message.length <= INPUT_ERROR_PART_MAX) {
            expect(shown.endsWith(` ${escapeTerminal(message)}`)).toBe(true);
          } else if (message.length > INPUT_ERROR_PART_MAX + 40) {
            expect(shown).toMatch(/… \(\d+ more characters\)$/u);
            expect(shown.length).toBeLessThan(bound(message) + bound(field) + 30);
          }
        },
      ),
      { numRuns: 200 },
    );
  });
});
