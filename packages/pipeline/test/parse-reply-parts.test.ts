import { TEXT_PART_CHARS } from "@assay/core";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { outcomesOfReply, parsedLinesJson, parseLineBytes } from "../src/ingest/parse-lines.js";

// A parse thread answers a batch with JSON texts of about TEXT_PART_CHARS each (V8 maps a
// string over 128 KB on its own): read back in order, they must give exactly what parsing
// the batch in one go gives, whatever the lines' sizes and kinds.
const answer = fc.oneof(
  { weight: 6, arbitrary: fc.string({ unit: "grapheme", maxLength: 30 }) },
  {
    weight: 1,
    arbitrary: fc.integer({ min: 1, max: TEXT_PART_CHARS * 2 }).map((n) => "a".repeat(n)),
  },
);
const line = fc.oneof(
  { weight: 8, arbitrary: answer.map((a) => ({ question: "q?", answer: a, target: "a" })) },
  { weight: 1, arbitrary: fc.constant("{ not json") },
  { weight: 1, arbitrary: fc.constant("   ") },
  // Per-sample scorers: validation changes the record, which crosses re-serialized.
  {
    weight: 1,
    arbitrary: answer.map((a) => ({ question: "q?", answer: a, scorers: [{ name: "exact" }] })),
  },
);

/** Parses `lines` as one batch and checks that its reply reads back as parsing it in one go. */
function checkReply(lines: (string | object)[], first: number, maxLineBytes: number): string[] {
  const text = lines
    .map((l, i) => (typeof l === "string" ? l : JSON.stringify({ id: `s${i}`, ...l })))
    .join("\n");
  const batch = { firstLine: first + 1, bytes: new Uint8Array(Buffer.from(text)) };
  const parts = parsedLinesJson(batch, maxLineBytes);
  for (const part of parts) {
    const items = JSON.parse(part) as unknown[];
    // A part runs past the size only by its last line.
    if (items.length > 1) {
      const last = JSON.stringify(items.at(-1)).length;
      expect(part.length - last).toBeLessThan(TEXT_PART_CHARS + 200);
    }
  }
  expect(outcomesOfReply(parts, batch.firstLine)).toStrictEqual(
    parseLineBytes(batch, maxLineBytes),
  );
  return parts;
}

const lines = fc.array(line, { minLength: 1, maxLength: 400 });

describe("a parse thread's reply", () => {
  it("reads back, part by part, as the batch parsed in one go", () => {
    fc.assert(
      fc.property(lines, fc.nat(50), (batch, first) => {
        const parts = checkReply(batch, first, 1 << 20);
        const chars = parts.reduce((sum, part) => sum + part.length, 0);
        if (chars > 3 * TEXT_PART_CHARS) expect(parts.length).toBeGreaterThan(1);
      }),
      { numRuns: 40 },
    );
  });

  it("cuts a large batch into parts of about TEXT_PART_CHARS that read back in order", () => {
    // ~4 parts' worth of lines, among them blank and unreadable ones.
    const batch = Array.from({ length: 600 }, (_, i) =>
      i % 50 === 7 ? "{ not json" : i % 50 === 9 ? "" : { question: "q?", answer: "a".repeat(300) },
    );
    const parts = checkReply(batch, 0, 1 << 20);
    expect(parts.length).toBeGreaterThanOrEqual(4);
    for (const part of parts.slice(0, -1)) {
      expect(part.length).toBeGreaterThanOrEqual(TEXT_PART_CHARS);
    }
  });

  it("reads back lines refused unread for their length in their places", () => {
    fc.assert(
      fc.property(lines, fc.nat(50), (batch, first) => void checkReply(batch, first, 4096)),
      { numRuns: 40 },
    );
  });
});
