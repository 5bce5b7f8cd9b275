import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type DatasetEvent, readDataset } from "../src/index.js";
import { tempFiles } from "./temp-files.js";

const files = tempFiles();

async function collect(path: string, parseThreads: number): Promise<DatasetEvent[]> {
  const events: DatasetEvent[] = [];
  for await (const event of readDataset(path, { parseThreads, maxLineBytes: 200 })) {
    events.push(event);
  }
  return events;
}

/** A line of each kind a dataset can hold; `id` makes a good line's sample unique. */
const lineKinds = {
  good: (id: string) => JSON.stringify({ id, question: "q?", answer: id, target: id }),
  malformed: () => '{"id": "x", "question": ',
  noAnswer: (id: string) => JSON.stringify({ id, question: "q?" }),
  notObject: () => "[1, 2]",
  tooLong: (id: string) => JSON.stringify({ id, question: "q".repeat(300), answer: "a" }),
  blank: () => "   ",
};
type Kind = keyof typeof lineKinds;
const kindNames = Object.keys(lineKinds) as Kind[];

describe("reading a dataset on parse threads", () => {
  it("stores every good line once, in order, and reports each bad line with its number", async () => {
    let file = 0;
    await fc.assert(
      fc.asyncProperty(
        // Enough lines for several batches, so batches cross threads and come back in order.
        fc.array(fc.constantFrom(...kindNames), { minLength: 1, maxLength: 2500 }),
        async (kinds) => {
          const text = kinds.map((kind, i) => lineKinds[kind](`id${i}`)).join("\n");
          file += 1;
          const path = files.write(`mixed-${file}.jsonl`, `${text}\n`);
          const lineOf = (i: number) => i + 1;
          const expectedGood = kinds.flatMap((kind, i) => (kind === "good" ? [lineOf(i)] : []));
          const expectedBad = kinds.flatMap((kind, i) =>
            kind === "good" || kind === "blank" ? [] : [lineOf(i)],
          );
          if (expectedGood.length + expectedBad.length === 0) {
            await expect(collect(path, 2)).rejects.toThrow(/empty/);
            return;
          }

          const events = await collect(path, 2);
          const good = events.flatMap((e) => (e.kind === "samples" ? [e] : []));
          expect(good.map((e) => e.line)).toEqual(expectedGood);
          for (const event of good) {
            expect(event.samples.map((s) => [s.id, s.line])).toEqual([
              [`id${event.line - 1}`, event.line],
            ]);
          }
          const bad = events.flatMap((e) => (e.kind === "error" ? [e.error] : []));
          expect(bad.map((error) => error.line)).toEqual(expectedBad);
          for (const error of bad) expect(error.file).toBe(path);
          // The whole stream is in file order.
          const order = events.map((e) => (e.kind === "samples" ? e.line : e.error.line));
          expect(order).toEqual([...order].sort((a, b) => a - b));
        },
      ),
      { numRuns: 5 },
    );
  });

  it("gives the same events as parsing in this thread, field and message included", async () => {
    const kinds = Array.from({ length: 2500 }, (_, i) => kindNames[(i * 7) % kindNames.length]);
    const text = kinds.map((kind, i) => lineKinds[kind as Kind](`id${i}`)).join("\n");
    const path = files.write("same.jsonl", text);
    expect(await collect(path, 3)).toEqual(await collect(path, 0));
  });

  it("stops its threads when the reader stops early", async () => {
    const text = Array.from({ length: 5000 }, (_, i) => lineKinds.good(`id${i}`)).join("\n");
    const path = files.write("early.jsonl", text);
    const events = readDataset(path, { parseThreads: 2 });
    const first = await events.next();
    expect(first.value).toMatchObject({ kind: "samples", line: 1 });
    await events.return(undefined);
  });
});
