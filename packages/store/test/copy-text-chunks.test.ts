import { TEXT_PART_CHARS } from "@assay/core";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { ColumnList } from "../src/bulk/column-list.js";
import { copyText } from "../src/bulk/copy-text.js";

// COPY text goes out in chunks kept under V8's large-object size (TEXT_PART_CHARS), cut only
// between rows: whatever the rows, the chunks are the rows' lines in order, each whole.
const list: ColumnList = {
  table: "t",
  keys: ["text", "n"],
  names: ["text", "n"],
  types: ["text", "integer"],
  derived: {},
};

const text = fc.oneof(
  { weight: 8, arbitrary: fc.string({ unit: "grapheme", maxLength: 40 }) },
  // Now and then a row longer than a chunk, or a good part of one.
  {
    weight: 1,
    arbitrary: fc.integer({ min: 1, max: 2 * TEXT_PART_CHARS }).map((n) => "é".repeat(n)),
  },
);

describe("COPY text chunks", () => {
  it("hold every row once, whole and in order, and stay under the chunk size but for a long row", () => {
    let split = 0;
    fc.assert(
      fc.property(fc.array(text, { maxLength: 3000 }), (texts) => {
        const rows = texts.map((value, n) => ({ text: value.replace(/[\\\t\n\r]/g, ""), n }));
        const chunks = copyText(list, rows);
        const lines = chunks.flatMap((chunk) => {
          expect(chunk.endsWith("\n")).toBe(true);
          const rowsOfChunk = chunk.slice(0, -1).split("\n");
          // Only the row that took a chunk over the size may end it there.
          const beforeLast = chunk.length - (rowsOfChunk.at(-1) as string).length - 1;
          expect(beforeLast).toBeLessThan(TEXT_PART_CHARS);
          return rowsOfChunk;
        });
        const expected = rows.map((row) => `${row.text}\t${row.n}`);
        expect(lines).toEqual(expected);
        // Rows before the last that fill a chunk end it: the last row starts another.
        const beforeLastRow = expected.slice(0, -1).join("\n").length + 1;
        if (beforeLastRow >= TEXT_PART_CHARS) expect(chunks.length).toBeGreaterThan(1);
        if (chunks.length > 1) split += 1;
      }),
      {
        numRuns: 60,
        // Runs that must split, whatever the generated ones draw (60 draws split six times
        // or fewer in ~2% of 300 tries, which failed a whole-suite run): a row longer than
        // a chunk between short ones, and short rows that fill several chunks.
        examples: [
          [["a", "é".repeat(TEXT_PART_CHARS + 5), "b"]],
          [Array.from({ length: 3000 }, (_, i) => `row ${i} `.padEnd(40, "x"))],
        ],
      },
    );
    expect(split).toBeGreaterThanOrEqual(2);
  });
});
