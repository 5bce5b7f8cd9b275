import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type LineOutcome, parseLine, parseLineBytes } from "../src/ingest/parse-lines.js";
import { readLineBatches } from "../src/ingest/read-line-batches.js";
import { readLines } from "../src/ingest/read-lines.js";
import { tempFiles } from "./temp-files.js";

const files = tempFiles();

/** Each line of the file as `readLines` sees it, then parsed. */
async function lineByLine(path: string, maxLineBytes: number): Promise<LineOutcome[]> {
  const outcomes: LineOutcome[] = [];
  for await (const raw of readLines(path, { maxLineBytes })) {
    outcomes.push(parseLine(raw, maxLineBytes));
  }
  return outcomes;
}

/** The same file read in batches of bytes, split and parsed as a parse thread does. */
async function inBatches(
  path: string,
  maxLineBytes: number,
  readBytes: number,
): Promise<LineOutcome[]> {
  const outcomes: LineOutcome[] = [];
  for await (const batch of readLineBatches(path, { maxLineBytes, readBytes })) {
    if (batch.kind === "lines") outcomes.push(...parseLineBytes(batch, maxLineBytes));
    else {
      const raw = { number: batch.line, problem: "too_long", bytes: batch.bytes } as const;
      outcomes.push(parseLine(raw, maxLineBytes));
    }
  }
  return outcomes;
}

/** Pieces a line can be made of: good JSON, CRs, byte-order marks, bytes that are not UTF-8. */
const piece = fc.oneof(
  fc.constant('{"id":"a","question":"q","answer":"x"}'),
  fc.constant('{"id":"b","question":"é€😀","answer":"y"}'),
  fc.constant("\r"),
  fc.constant("\uFEFF"),
  fc.constant(Buffer.from([0xff])),
  fc.constant(Buffer.from([0xe2, 0x82])),
  fc.constant("  "),
  fc.string({ maxLength: 30 }),
);
const line = fc.array(piece, { maxLength: 4 });

describe("reading lines in batches of bytes", () => {
  it("gives every line the same number and outcome as reading line by line", async () => {
    let file = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(line, { maxLength: 40 }),
        fc.boolean(),
        fc.integer({ min: 1, max: 120 }),
        fc.integer({ min: 1, max: 64 }),
        async (lines, finalNewline, maxLineBytes, readBytes) => {
          const parts = lines.map((pieces) =>
            Buffer.concat(pieces.map((p) => (typeof p === "string" ? Buffer.from(p) : p))),
          );
          const joined = parts.flatMap((part, i) =>
            i < parts.length - 1 || finalNewline ? [part, Buffer.from("\n")] : [part],
          );
          file += 1;
          const path = files.write(`batches-${file}.jsonl`, Buffer.concat(joined));
          expect(await inBatches(path, maxLineBytes, readBytes)).toEqual(
            await lineByLine(path, maxLineBytes),
          );
        },
      ),
      { numRuns: 300 },
    );
  });
});
